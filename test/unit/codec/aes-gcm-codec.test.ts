// The AES-GCM payload codec: round trip through the SDK's converter, tampering, unknown keys and key rotation.
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  AesGcmCodec,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  PayloadDecryptionError,
  UnknownCodecKeyError,
} from '../../../src/codec/aes-gcm-codec';
import { createCodecKeyring, type CodecKey } from '../../../src/codec/codec-key';

const october: CodecKey = { id: '2026-10', material: randomBytes(32) };
const november: CodecKey = { id: '2026-11', material: randomBytes(32) };
const secretPrompt = 'The launch code is PELICAN-7731, keep it secret';

const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');

async function encryptOne(codec: AesGcmCodec, value: unknown): Promise<Payload> {
  const [encrypted] = await codec.encode([defaultPayloadConverter.toPayload(value)]);
  return encrypted!;
}

test('round trip: the value comes back, the ciphertext shows neither it nor its encoding', async () => {
  const codec = new AesGcmCodec(createCodecKeyring(october));
  const value = { messages: [{ role: 'user', content: secretPrompt }], maxOutputTokens: 64 };
  const encrypted = await encryptOne(codec, value);

  expect(text(encrypted.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
  expect(text(encrypted.metadata?.[KEY_ID_METADATA])).toBe('2026-10');
  expect(Object.keys(encrypted.metadata ?? {}).sort()).toEqual(['encoding', KEY_ID_METADATA].sort());
  const raw = Buffer.from(encrypted.data!);
  expect(raw.toString('utf8')).not.toContain('PELICAN');
  expect(raw.toString('latin1')).not.toContain('json/plain');

  const [decrypted] = await codec.decode([encrypted]);
  expect(text(decrypted!.metadata?.encoding)).toBe('json/plain');
  expect(defaultPayloadConverter.fromPayload(decrypted!)).toEqual(value);
});

test('each payload gets a fresh IV: the same value never encrypts the same way twice', async () => {
  const codec = new AesGcmCodec(createCodecKeyring(october));
  const [first, second] = await Promise.all([
    encryptOne(codec, secretPrompt),
    encryptOne(codec, secretPrompt),
  ]);
  expect(Buffer.from(first.data!).equals(Buffer.from(second.data!))).toBe(false);
  expect(Buffer.from(first.data!).subarray(0, 12).equals(Buffer.from(second.data!).subarray(0, 12))).toBe(
    false,
  );
});

test('payloads that are not encrypted pass through decode unchanged (history from before encryption)', async () => {
  const codec = new AesGcmCodec(createCodecKeyring(october));
  const plain = defaultPayloadConverter.toPayload({ hello: 'world' });
  const [decoded] = await codec.decode([plain]);
  expect(decoded).toBe(plain);
});

test.each([
  ['a flipped ciphertext bit', (data: Buffer) => data[20]! ^ 0x01, 20],
  ['a flipped tag bit', (data: Buffer) => data[data.length - 1]! ^ 0x80, -1],
  ['a flipped IV bit', (data: Buffer) => data[0]! ^ 0x01, 0],
])('tampering (%s) fails authentication, naming the key id', async (_name, flip, index) => {
  const codec = new AesGcmCodec(createCodecKeyring(october));
  const encrypted = await encryptOne(codec, secretPrompt);
  const data = Buffer.from(encrypted.data!);
  const at = index < 0 ? data.length + index : index;
  data[at] = flip(data);
  const decoding = codec.decode([{ ...encrypted, data }]);
  await expect(decoding).rejects.toThrow(PayloadDecryptionError);
  await expect(decoding).rejects.toThrow(/key id "2026-10".*authentication failed/);
});

test('ciphertext relabelled with another key id fails, even when that key is known', async () => {
  const codec = new AesGcmCodec(createCodecKeyring(november, [october]));
  const encrypted = await encryptOne(codec, secretPrompt);
  const relabelled = {
    ...encrypted,
    metadata: { ...encrypted.metadata, [KEY_ID_METADATA]: Buffer.from('2026-10') },
  };
  await expect(codec.decode([relabelled])).rejects.toThrow(PayloadDecryptionError);
});

test('a truncated payload and one without a key id are refused clearly', async () => {
  const codec = new AesGcmCodec(createCodecKeyring(october));
  const encrypted = await encryptOne(codec, secretPrompt);
  await expect(
    codec.decode([{ ...encrypted, data: Buffer.from(encrypted.data!).subarray(0, 10) }]),
  ).rejects.toThrow(/too short/);
  await expect(
    codec.decode([{ ...encrypted, metadata: { encoding: encrypted.metadata!.encoding! } }]),
  ).rejects.toThrow(`no ${KEY_ID_METADATA} metadata`);
});

test('an unknown key id fails with an error naming the id and where to add the key, without key material', async () => {
  const encrypted = await encryptOne(new AesGcmCodec(createCodecKeyring(october)), secretPrompt);
  const other = new AesGcmCodec(createCodecKeyring(november));
  const error = await other.decode([encrypted]).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(UnknownCodecKeyError);
  expect(error).toMatchObject({ keyId: '2026-10' });
  const message = (error as Error).message;
  expect(message).toContain('"2026-10"');
  expect(message).toContain('SWITCHYARD_CODEC_OLD_KEYS');
  for (const key of [october, november]) {
    expect(message).not.toContain(key.material.toString('base64').slice(0, 8));
    expect(message).not.toContain(key.material.toString('hex').slice(0, 8));
  }
});

test('rotation: a new current key encrypts, and history under the old key still decodes', async () => {
  const before = new AesGcmCodec(createCodecKeyring(october));
  const oldPayload = await encryptOne(before, secretPrompt);

  const after = new AesGcmCodec(createCodecKeyring(november, [october]));
  const newPayload = await encryptOne(after, 'after rotation');
  expect(text(newPayload.metadata?.[KEY_ID_METADATA])).toBe('2026-11');

  const decoded = await after.decode([oldPayload, newPayload]);
  expect(decoded.map((payload) => defaultPayloadConverter.fromPayload(payload))).toEqual([
    secretPrompt,
    'after rotation',
  ]);
  // And the old key alone cannot read what the new one wrote.
  await expect(before.decode([newPayload])).rejects.toThrow(UnknownCodecKeyError);
});
