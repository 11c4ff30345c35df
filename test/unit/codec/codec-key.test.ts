// Reading codec keys from the environment: defaults, rotation lists, and errors that name the variable, not the value.
import { randomBytes } from 'node:crypto';
import { CodecKeyError, deriveKeyId, readCodecKeyring } from '../../../src/codec/codec-key';
import { AesGcmCodec } from '../../../src/codec/aes-gcm-codec';
import { dataConverterFromEnvironment } from '../../../src/codec/data-converter';

const currentKey = randomBytes(32);
const oldKey = randomBytes(32);
const base64 = (bytes: Buffer) => bytes.toString('base64');

function keyError(environment: NodeJS.ProcessEnv): CodecKeyError {
  try {
    readCodecKeyring(environment);
  } catch (error) {
    if (error instanceof CodecKeyError) return error;
    throw error;
  }
  throw new Error('expected a CodecKeyError');
}

test('no key means no encryption: no keyring, no AES codec, no encrypting failure converter', () => {
  expect(readCodecKeyring({})).toBeUndefined();
  expect(readCodecKeyring({ SWITCHYARD_CODEC_KEY: '  ' })).toBeUndefined();
  const converter = dataConverterFromEnvironment({});
  expect(converter.payloadCodecs?.some((codec) => codec instanceof AesGcmCodec)).toBe(false);
  expect(converter.failureConverterPath).toBeUndefined();
});

test('a key alone gets an id derived from its hash, which does not contain the key', () => {
  const keyring = readCodecKeyring({ SWITCHYARD_CODEC_KEY: base64(currentKey) })!;
  expect(keyring.current.material.equals(currentKey)).toBe(true);
  expect(keyring.current.id).toBe(deriveKeyId(currentKey));
  expect(keyring.current.id).toMatch(/^k[0-9a-f]{12}$/);
  expect(keyring.current.id).not.toBe(deriveKeyId(oldKey));
  expect(base64(currentKey)).not.toContain(keyring.current.id.slice(1));
  expect(currentKey.toString('hex')).not.toContain(keyring.current.id.slice(1));
  expect([...keyring.decodeKeys.keys()]).toEqual([keyring.current.id]);
  const converter = dataConverterFromEnvironment({ SWITCHYARD_CODEC_KEY: base64(currentKey) });
  expect(converter.payloadCodecs?.[0]).toBeInstanceOf(AesGcmCodec);
  expect(converter.failureConverterPath).toBeDefined();
});

test('an explicit id and old keys for decoding (rotation)', () => {
  const keyring = readCodecKeyring({
    SWITCHYARD_CODEC_KEY: base64(currentKey),
    SWITCHYARD_CODEC_KEY_ID: '2026-11',
    SWITCHYARD_CODEC_OLD_KEYS: ` 2026-10:${base64(oldKey)} , legacy:${base64(randomBytes(32))},`,
  })!;
  expect(keyring.current.id).toBe('2026-11');
  expect([...keyring.decodeKeys.keys()].sort()).toEqual(['2026-10', '2026-11', 'legacy']);
  expect(keyring.decodeKeys.get('2026-10')!.equals(oldKey)).toBe(true);
});

describe('bad values name the variable and never echo the value', () => {
  const notBase64 = 'this-is-not*base64-but-a-secret-passphrase!';
  const shortKey = base64(randomBytes(16));
  const cases: readonly [string, NodeJS.ProcessEnv, string, string][] = [
    ['a key that is not base64', { SWITCHYARD_CODEC_KEY: notBase64 }, 'SWITCHYARD_CODEC_KEY', notBase64],
    ['a key of 16 bytes', { SWITCHYARD_CODEC_KEY: shortKey }, 'SWITCHYARD_CODEC_KEY', shortKey],
    [
      'a bad key id',
      { SWITCHYARD_CODEC_KEY: base64(currentKey), SWITCHYARD_CODEC_KEY_ID: 'has:colon' },
      'SWITCHYARD_CODEC_KEY_ID',
      base64(currentKey),
    ],
    [
      'an old key entry without an id',
      { SWITCHYARD_CODEC_KEY: base64(currentKey), SWITCHYARD_CODEC_OLD_KEYS: base64(oldKey) },
      'SWITCHYARD_CODEC_OLD_KEYS',
      base64(oldKey),
    ],
    [
      'an old key that is too short',
      { SWITCHYARD_CODEC_KEY: base64(currentKey), SWITCHYARD_CODEC_OLD_KEYS: `old:${shortKey}` },
      'SWITCHYARD_CODEC_OLD_KEYS',
      shortKey,
    ],
    [
      'an old key id given twice',
      {
        SWITCHYARD_CODEC_KEY: base64(currentKey),
        SWITCHYARD_CODEC_OLD_KEYS: `old:${base64(oldKey)},old:${base64(oldKey)}`,
      },
      'SWITCHYARD_CODEC_OLD_KEYS',
      base64(oldKey),
    ],
    [
      'an old key reusing the current id for another key',
      {
        SWITCHYARD_CODEC_KEY: base64(currentKey),
        SWITCHYARD_CODEC_KEY_ID: 'now',
        SWITCHYARD_CODEC_OLD_KEYS: `now:${base64(oldKey)}`,
      },
      'SWITCHYARD_CODEC_OLD_KEYS',
      base64(oldKey),
    ],
    [
      'old keys without a current key',
      { SWITCHYARD_CODEC_OLD_KEYS: `old:${base64(oldKey)}` },
      'SWITCHYARD_CODEC_OLD_KEYS',
      base64(oldKey),
    ],
  ];
  test.each(cases)('%s', (_name, environment, variable, secret) => {
    const error = keyError(environment);
    expect(error.variable).toBe(variable);
    expect(error.message).toContain(variable);
    expect(error.message).not.toContain(secret);
    // Nor any recognisable part of it.
    expect(error.message).not.toContain(secret.slice(0, 12));
    expect(error.message).not.toContain(base64(currentKey).slice(0, 12));
  });

  test('a typo inside otherwise valid base64 is refused, not decoded to another key', () => {
    const typo = `${base64(currentKey).slice(0, 20)}!${base64(currentKey).slice(21)}`;
    expect(keyError({ SWITCHYARD_CODEC_KEY: typo }).message).toContain('not valid base64');
  });
});
