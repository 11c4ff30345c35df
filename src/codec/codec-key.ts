// The payload codec's AES-256 keys, read from the environment: one current key, older ones for decoding. Node side.
import { createHash } from 'node:crypto';
import { CodecSettingsError } from './codec-settings-error';

/** Environment variables the codec reads its keys from. */
export const CODEC_KEY_VARIABLES = {
  /** Base64 of 32 random bytes: the key every new payload is encrypted with. */
  key: 'SWITCHYARD_CODEC_KEY',
  /** The current key's id, written beside each payload. @default derived from a hash of the key */
  keyId: 'SWITCHYARD_CODEC_KEY_ID',
  /** Earlier keys, still accepted for decoding: a comma list of `id:base64`. */
  oldKeys: 'SWITCHYARD_CODEC_OLD_KEYS',
} as const;

/** AES-256: 32 bytes. */
export const CODEC_KEY_BYTES = 32;

/** Ids are written in payload metadata and parsed out of `id:base64` lists, so no `:` or `,` and no spaces. */
const KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** One AES-256 key and the id that names it in payload metadata. */
export interface CodecKey {
  readonly id: string;
  /** 32 bytes. Never print it. */
  readonly material: Buffer;
}

/** The keys a codec works with: `current` encrypts; every key in `decodeKeys` (current included) decrypts. */
export interface CodecKeyring {
  readonly current: CodecKey;
  /** Key material by key id. */
  readonly decodeKeys: ReadonlyMap<string, Buffer>;
}

/**
 * A codec key variable holds something unusable. The message names the variable (and the entry of a list) but
 * never the value, which is, or is close to, key material.
 */
export class CodecKeyError extends CodecSettingsError {
  static override readonly brand: string = 'switchyard.CodecKeyError';

  override readonly name = 'CodecKeyError';
}

const GENERATE_HINT = 'generate one with `openssl rand -base64 32`';

/**
 * Decodes base64 key material strictly: Node's decoder skips characters it does not know, so a typo would
 * otherwise yield a different key rather than an error.
 */
function decodeKeyMaterial(variable: string, encoded: string, where = ''): Buffer {
  const compact = encoded.trim();
  if (!BASE64_PATTERN.test(compact) || compact.length === 0)
    throw new CodecKeyError(variable, `${where}is not valid base64; ${GENERATE_HINT}`);
  const material = Buffer.from(compact, 'base64');
  if (material.length !== CODEC_KEY_BYTES)
    throw new CodecKeyError(
      variable,
      `${where}must decode to ${CODEC_KEY_BYTES} bytes for AES-256, not ${material.length}; ${GENERATE_HINT}`,
    );
  return material;
}

function checkKeyId(variable: string, id: string, where = ''): string {
  if (!KEY_ID_PATTERN.test(id))
    throw new CodecKeyError(
      variable,
      `${where}has an invalid key id: use 1 to 64 letters, digits, ".", "_" or "-"`,
    );
  return id;
}

/**
 * A key id derived from the key: a hash, so ids stay stable across processes without configuration, and a
 * different domain string from any other use, so the id reveals nothing usable about the key.
 */
export function deriveKeyId(material: Buffer): string {
  const digest = createHash('sha256').update('switchyard-codec-key-id\0').update(material).digest('hex');
  return `k${digest.slice(0, 12)}`;
}

function parseOldKeys(list: string): Map<string, Buffer> {
  const variable = CODEC_KEY_VARIABLES.oldKeys;
  const keys = new Map<string, Buffer>();
  const entries = list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  entries.forEach((entry, index) => {
    const where = `entry ${index + 1} `;
    const separator = entry.indexOf(':');
    if (separator < 0) throw new CodecKeyError(variable, `${where}must be written id:base64`);
    const id = checkKeyId(variable, entry.slice(0, separator).trim(), where);
    const material = decodeKeyMaterial(variable, entry.slice(separator + 1), `${where}(key id "${id}") `);
    if (keys.has(id)) throw new CodecKeyError(variable, `names key id "${id}" twice`);
    keys.set(id, material);
  });
  return keys;
}

/**
 * Reads the codec keys from `environment`. Returns undefined when `SWITCHYARD_CODEC_KEY` is unset or empty
 * (encryption off); throws {@link CodecKeyError} for any value that cannot be used.
 */
export function readCodecKeyring(environment: NodeJS.ProcessEnv = process.env): CodecKeyring | undefined {
  const encoded = environment[CODEC_KEY_VARIABLES.key]?.trim();
  const oldKeysList = environment[CODEC_KEY_VARIABLES.oldKeys]?.trim();
  if (!encoded) {
    // Old keys alone would decode but never encrypt: almost surely a forgotten current key, so say so.
    if (oldKeysList)
      throw new CodecKeyError(
        CODEC_KEY_VARIABLES.oldKeys,
        `is set but ${CODEC_KEY_VARIABLES.key} is not: set the current key too`,
      );
    return undefined;
  }
  const material = decodeKeyMaterial(CODEC_KEY_VARIABLES.key, encoded);
  const explicitId = environment[CODEC_KEY_VARIABLES.keyId]?.trim();
  const id = explicitId ? checkKeyId(CODEC_KEY_VARIABLES.keyId, explicitId) : deriveKeyId(material);
  const decodeKeys = oldKeysList ? parseOldKeys(oldKeysList) : new Map<string, Buffer>();
  const clash = decodeKeys.get(id);
  if (clash && !clash.equals(material))
    throw new CodecKeyError(
      CODEC_KEY_VARIABLES.oldKeys,
      `gives key id "${id}" a different key than ${CODEC_KEY_VARIABLES.key}; a key id must name one key`,
    );
  decodeKeys.set(id, material);
  return { current: { id, material }, decodeKeys };
}

/** A keyring from explicit keys (tests, or keys from a secret store): `current` encrypts, all decrypt. */
export function createCodecKeyring(current: CodecKey, older: readonly CodecKey[] = []): CodecKeyring {
  const decodeKeys = new Map<string, Buffer>();
  for (const key of [...older, current]) {
    checkKeyId('codec key', key.id);
    if (key.material.length !== CODEC_KEY_BYTES)
      throw new CodecKeyError(
        `key "${key.id}"`,
        `must be ${CODEC_KEY_BYTES} bytes, not ${key.material.length}`,
      );
    decodeKeys.set(key.id, key.material);
  }
  return { current, decodeKeys };
}
