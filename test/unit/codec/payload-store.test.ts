// Large payloads outside history: the filesystem store, the claim-check codec, the size limit, their settings.
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { ENCRYPTED_ENCODING } from '../../../src/codec/aes-gcm-codec';
import { PayloadCodecChain } from '../../../src/codec/codec-chain';
import { createCodecKeyring } from '../../../src/codec/codec-key';
import { CodecSettingsError } from '../../../src/codec/codec-settings-error';
import { dataConverterFromEnvironment, switchyardPayloadCodecs } from '../../../src/codec/data-converter';
import { FilesystemPayloadStore } from '../../../src/codec/filesystem-payload-store';
import { MissingKeyCodec } from '../../../src/codec/missing-key-codec';
import { PayloadLimitCodec } from '../../../src/codec/payload-limit-codec';
import {
  payloadLimitFromEnvironment,
  payloadsSize,
  payloadSizeUpperBound,
  PayloadTooLargeError,
  TEMPORAL_LIMITS,
} from '../../../src/codec/payload-limits';
import { contentKey, PayloadStoreError } from '../../../src/codec/payload-store';
import {
  isReferencePayload,
  MissingPayloadStoreCodec,
  PAYLOAD_REFERENCE_ENCODING,
  PayloadStoreCodec,
  PayloadStoreMissingError,
  readReference,
} from '../../../src/codec/payload-store-codec';
import { payloadStoreFromEnvironment } from '../../../src/codec/payload-store-settings';
import {
  callInputSizeRules,
  callInputSizeRulesFromEnvironment,
  CALL_INPUT_HEADROOM_BYTES,
  checkCallInputSize,
} from '../../../src/client/call-input-size';
import { validateCallInput } from '../../../src/client/switchyard-client';

const MiB = 1024 * 1024;
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');
const PayloadsMessage = temporal.api.common.v1.Payloads;

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'switchyard-payloads-'));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

/** Every file under the store directory, relative to it. */
function storedFiles(): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(directory, path.join(entry.parentPath, entry.name)));
}

function bigPrompt(bytes: number, marker = 'Quokka-needle'): string {
  return `${marker} ${'lorem ipsum dolor sit amet '.repeat(Math.ceil(bytes / 27))}`.slice(0, bytes);
}

describe('the filesystem store', () => {
  test('files are named by the SHA-256 of their bytes, written whole, and read back verified', async () => {
    const store = new FilesystemPayloadStore(directory);
    const bytes = randomBytes(100_000);
    const key = await store.put(bytes);
    expect(key).toBe(contentKey(bytes));
    expect(key).toMatch(/^sha256-[0-9a-f]{64}$/);
    const hex = key.slice('sha256-'.length);
    expect(storedFiles()).toEqual([path.join(hex.slice(0, 2), key)]);
    expect(Buffer.from(await store.get(key)).equals(bytes)).toBe(true);
  });

  test('storing the same bytes again, even concurrently, keeps one copy and refreshes its time', async () => {
    const store = new FilesystemPayloadStore(directory);
    const bytes = randomBytes(50_000);
    const keys = await Promise.all(Array.from({ length: 8 }, () => store.put(bytes)));
    expect(new Set(keys).size).toBe(1);
    expect(storedFiles()).toHaveLength(1);
    const file = store.pathOf(keys[0]!);
    const longAgo = new Date('2020-01-01T00:00:00Z');
    utimesSync(file, longAgo, longAgo);
    await store.put(bytes);
    expect(statSync(file).mtimeMs).toBeGreaterThan(longAgo.getTime() + 1_000);
    // No temporary file is left behind.
    expect(storedFiles().filter((name) => name.endsWith('.partial'))).toEqual([]);
  });

  test("folders and files it creates are its owner's alone (0700, 0600), even under umask 000", async () => {
    const previous = process.umask(0o000);
    try {
      const root = path.join(directory, 'made-by-the-settings');
      const settings = payloadStoreFromEnvironment(TEMPORAL_LIMITS.blobSizeErrorBytes, {
        SWITCHYARD_PAYLOAD_STORE_DIR: root,
      });
      expect(statSync(root).mode & 0o777).toBe(0o700);
      const store = settings!.store as FilesystemPayloadStore;
      const key = await store.put(randomBytes(2_000));
      expect(statSync(path.dirname(store.pathOf(key))).mode & 0o777).toBe(0o700);
      expect(statSync(store.pathOf(key)).mode & 0o777).toBe(0o600);
    } finally {
      process.umask(previous);
    }
  });

  test('a key that is not a content address never becomes a path', async () => {
    const store = new FilesystemPayloadStore(directory);
    for (const key of ['../../etc/passwd', 'sha256-../../x', `sha256-${'A'.repeat(64)}`, ''])
      await expect(store.get(key)).rejects.toBeInstanceOf(PayloadStoreError);
  });

  test('a missing file names the setting; an altered one is detected', async () => {
    const store = new FilesystemPayloadStore(directory);
    const missing = contentKey(Buffer.from('never stored'));
    await expect(store.get(missing)).rejects.toThrow(/is not in directory .*SWITCHYARD_PAYLOAD_STORE_DIR/);
    const key = await store.put(Buffer.from('original bytes'));
    writeFileSync(store.pathOf(key), 'altered bytes');
    await expect(store.get(key)).rejects.toThrow('does not match its content address');
  });
});

describe('the claim-check codec', () => {
  test('small payloads stay inline; large ones become a small reference and come back exactly', async () => {
    const codec = new PayloadStoreCodec(new FilesystemPayloadStore(directory), 256 * 1024);
    const small = defaultPayloadConverter.toPayload({ prompt: 'hello' });
    const large = defaultPayloadConverter.toPayload({ prompt: bigPrompt(3 * MiB) });
    const [keptSmall, reference] = await codec.encode([small, large]);
    expect(keptSmall).toBe(small);
    expect(isReferencePayload(reference!)).toBe(true);
    expect(text(reference!.metadata?.encoding)).toBe(PAYLOAD_REFERENCE_ENCODING);
    expect(payloadsSize([reference!])).toBeLessThan(200);
    expect(text(reference!.data)).not.toContain('Quokka');
    expect(readReference(reference!).sizeBytes).toBe(
      temporal.api.common.v1.Payload.encode(large).finish().length,
    );

    const [backSmall, backLarge] = await codec.decode([keptSmall!, reference!]);
    expect(backSmall).toBe(small);
    expect(defaultPayloadConverter.fromPayload(backLarge!)).toEqual({ prompt: bigPrompt(3 * MiB) });
  });

  test('with encryption in front, the store holds only ciphertext, and the chain reads it back', async () => {
    const keyring = createCodecKeyring({ id: 'unit', material: randomBytes(32) });
    const store = new FilesystemPayloadStore(directory);
    const chain = new PayloadCodecChain(
      switchyardPayloadCodecs({ keyring, payloadStore: { store, thresholdBytes: 256 * 1024 } }),
    );
    const value = { prompt: bigPrompt(MiB, 'Pelican-secret') };
    const [reference] = await chain.encode([defaultPayloadConverter.toPayload(value)]);
    expect(isReferencePayload(reference!)).toBe(true);
    const [file] = storedFiles();
    const stored = readFileSync(path.join(directory, file!));
    expect(stored.toString('latin1')).not.toContain('Pelican-secret');
    expect(stored.toString('latin1')).not.toContain('lorem ipsum');
    const storedPayload = temporal.api.common.v1.Payload.decode(stored);
    expect(text(storedPayload.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
    const [decoded] = await chain.decode([reference!]);
    expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual(value);
  });

  test('a reference tampered to another size is refused', async () => {
    const codec = new PayloadStoreCodec(new FilesystemPayloadStore(directory), 1024);
    const [reference] = await codec.encode([defaultPayloadConverter.toPayload(bigPrompt(10_000))]);
    const { key } = readReference(reference!);
    const forged: Payload = {
      metadata: reference!.metadata!,
      data: Buffer.from(JSON.stringify({ key, sizeBytes: 5 })),
    };
    await expect(codec.decode([forged])).rejects.toThrow('the reference says 5');
  });

  test('a process without a store meets a reference with an error naming the setting', async () => {
    const codec = new PayloadStoreCodec(new FilesystemPayloadStore(directory), 1024);
    const [reference] = await codec.encode([defaultPayloadConverter.toPayload(bigPrompt(10_000))]);
    const missing = new MissingPayloadStoreCodec();
    await expect(missing.decode([reference!])).rejects.toBeInstanceOf(PayloadStoreMissingError);
    await expect(missing.decode([reference!])).rejects.toThrow('SWITCHYARD_PAYLOAD_STORE_DIR is not set');
    const plain = defaultPayloadConverter.toPayload('plain');
    expect(await missing.decode([plain])).toEqual([plain]);
  });
});

describe('the size limit', () => {
  test('sizes are measured as the server measures a Payloads field', () => {
    const payloads = [
      defaultPayloadConverter.toPayload(bigPrompt(300_000)),
      defaultPayloadConverter.toPayload(7),
    ];
    const exact = PayloadsMessage.encode({ payloads }).finish().length;
    expect(payloadsSize(payloads, 0)).toBe(exact);
    for (const payload of payloads)
      expect(payloadSizeUpperBound(payload)).toBeGreaterThanOrEqual(
        temporal.api.common.v1.Payload.encode(payload).finish().length,
      );
  });

  test('a field over the limit is refused with its size and the limit; one at the limit passes', async () => {
    const payload = defaultPayloadConverter.toPayload(bigPrompt(2_500_000));
    const size = payloadsSize([payload], 0);
    const codec = new PayloadLimitCodec(TEMPORAL_LIMITS.blobSizeErrorBytes);
    const refusal = await codec
      .encode([payload], { type: 'workflow', namespace: 'default', workflowId: 'wf-1' })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(PayloadTooLargeError);
    expect(refusal).toMatchObject({ sizeBytes: size, limitBytes: 2 * MiB });
    expect((refusal as Error).message).toContain('a payload of workflow wf-1 is 2,500,0');
    expect((refusal as Error).message).toContain('SWITCHYARD_PAYLOAD_STORE_DIR');
    expect(await new PayloadLimitCodec(size).encode([payload])).toEqual([payload]);
  });

  test('Temporal’s documented defaults', () => {
    expect(TEMPORAL_LIMITS).toMatchObject({
      blobSizeErrorBytes: 2_097_152,
      blobSizeWarnBytes: 524_288,
      grpcMessageBytes: 4_194_304,
    });
  });
});

describe('routed call inputs', () => {
  const call = (prompt: string) =>
    validateCallInput({ route: 'support', request: { messages: [{ role: 'user', content: prompt }] } });

  test('a 2.5 MB prompt is refused without a store, naming its size and the limit', () => {
    const input = call(bigPrompt(2_500_000));
    let refusal: unknown;
    try {
      checkCallInputSize(input, { limitBytes: 2 * MiB, storeConfigured: false });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(PayloadTooLargeError);
    const { sizeBytes, limitBytes, message } = refusal as PayloadTooLargeError;
    expect(sizeBytes).toBe(Buffer.byteLength(JSON.stringify(input)));
    expect(limitBytes).toBe(2 * MiB - CALL_INPUT_HEADROOM_BYTES - 512);
    expect(message).toContain(`${sizeBytes.toLocaleString('en-US')} bytes`);
    expect(message).toContain('2,097,152 bytes in one event');
  });

  test('a prompt that fits passes, and with a store any size passes', () => {
    checkCallInputSize(call(bigPrompt(1_500_000)), { limitBytes: 2 * MiB, storeConfigured: false });
    checkCallInputSize(call(bigPrompt(6_000_000)), { limitBytes: 2 * MiB, storeConfigured: true });
  });

  test('the rules follow the client’s codecs, or the environment', () => {
    expect(callInputSizeRules([])).toEqual({ limitBytes: 2 * MiB, storeConfigured: false });
    const store = { store: new FilesystemPayloadStore(directory), thresholdBytes: 4096 };
    expect(callInputSizeRules(switchyardPayloadCodecs({ payloadStore: store, limitBytes: 1 * MiB }))).toEqual(
      {
        limitBytes: MiB,
        storeConfigured: true,
      },
    );
    expect(callInputSizeRulesFromEnvironment({ SWITCHYARD_PAYLOAD_STORE_DIR: directory })).toEqual({
      limitBytes: 2 * MiB,
      storeConfigured: true,
    });
  });
});

describe('settings from the environment', () => {
  test('nothing set: the default chain passes plaintext, refuses oversize payloads, stores nothing', () => {
    const converter = dataConverterFromEnvironment({});
    expect(converter.failureConverterPath).toBeUndefined();
    expect(converter.payloadCodecs?.map((codec) => codec.constructor)).toEqual([
      MissingKeyCodec,
      MissingPayloadStoreCodec,
      PayloadLimitCodec,
    ]);
  });

  test('the store directory is created, must be absolute, and the threshold must fit under the limit', () => {
    const nested = path.join(directory, 'a', 'b');
    const settings = payloadStoreFromEnvironment(2 * MiB, { SWITCHYARD_PAYLOAD_STORE_DIR: nested });
    expect(settings?.thresholdBytes).toBe(256 * 1024);
    expect(existsSync(nested)).toBe(true);
    expect(payloadStoreFromEnvironment(2 * MiB, {})).toBeUndefined();

    const refused = (environment: NodeJS.ProcessEnv, message: string) => {
      expect(() => payloadStoreFromEnvironment(2 * MiB, environment)).toThrow(CodecSettingsError);
      expect(() => payloadStoreFromEnvironment(2 * MiB, environment)).toThrow(message);
    };
    refused(
      { SWITCHYARD_PAYLOAD_STORE_DIR: 'relative/dir' },
      'SWITCHYARD_PAYLOAD_STORE_DIR must be an absolute path',
    );
    refused(
      { SWITCHYARD_PAYLOAD_STORE_DIR: directory, SWITCHYARD_PAYLOAD_STORE_THRESHOLD_BYTES: String(3 * MiB) },
      'SWITCHYARD_PAYLOAD_STORE_THRESHOLD_BYTES must be a whole number of bytes from 1024 to the payload limit',
    );
    refused(
      { SWITCHYARD_PAYLOAD_STORE_DIR: directory, SWITCHYARD_PAYLOAD_STORE_THRESHOLD_BYTES: '64k' },
      'got "64k"',
    );
    refused(
      { SWITCHYARD_PAYLOAD_STORE_THRESHOLD_BYTES: '4096' },
      'is set but SWITCHYARD_PAYLOAD_STORE_DIR is not',
    );
    const file = path.join(directory, 'a-file');
    writeFileSync(file, 'x');
    refused({ SWITCHYARD_PAYLOAD_STORE_DIR: file }, 'cannot read and write');
  });

  test('the limit variable', () => {
    expect(payloadLimitFromEnvironment({})).toBe(2 * MiB);
    expect(payloadLimitFromEnvironment({ SWITCHYARD_PAYLOAD_LIMIT_BYTES: '1048576' })).toBe(MiB);
    expect(() => payloadLimitFromEnvironment({ SWITCHYARD_PAYLOAD_LIMIT_BYTES: '8388608' })).toThrow(
      'SWITCHYARD_PAYLOAD_LIMIT_BYTES must be a whole number of bytes from 1024 to 4194304',
    );
  });
});
