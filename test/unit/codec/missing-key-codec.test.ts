// The codec of a process without a key: plaintext passes through, encrypted payloads fail naming the key id.
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { AesGcmCodec } from '../../../src/codec/aes-gcm-codec';
import { createCodecKeyring } from '../../../src/codec/codec-key';
import { CodecKeyMissingError, MissingKeyCodec } from '../../../src/codec/missing-key-codec';

test('plaintext payloads pass both ways untouched', async () => {
  const codec = new MissingKeyCodec();
  const payload = defaultPayloadConverter.toPayload({ hello: 'world' });
  expect(await codec.encode([payload])).toEqual([payload]);
  expect(await codec.decode([payload])).toEqual([payload]);
});

test('an encrypted payload fails with the key id and the variable to set', async () => {
  const encrypting = new AesGcmCodec(createCodecKeyring({ id: 'prod-1', material: randomBytes(32) }));
  const [encrypted] = await encrypting.encode([defaultPayloadConverter.toPayload('secret')]);
  const decoding = new MissingKeyCodec().decode([encrypted!]);
  await expect(decoding).rejects.toThrow(CodecKeyMissingError);
  await expect(decoding).rejects.toThrow(
    'encrypted with key id "prod-1" and SWITCHYARD_CODEC_KEY is not set',
  );
});
