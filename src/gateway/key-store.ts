// The gateway key file: hashes and scopes of the keys Switchyard issued, shared by every gateway that reads it. Node side.
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { keyIdOf, keyMatches, makeGatewayKey, StoredKeySchema, type StoredKey } from './gateway-key';

/** Key file used when neither an explicit path nor `SWITCHYARD_GATEWAY_KEYS` is given. */
export const DEFAULT_KEYS_FILE = 'switchyard.keys.json';

const KeyFileSchema = z.object({
  version: z.literal(1),
  keys: z.array(StoredKeySchema),
});
type KeyFile = z.infer<typeof KeyFileSchema>;

/** The key file path: the argument, else `SWITCHYARD_GATEWAY_KEYS`, else `./switchyard.keys.json`. */
export function keysPath(explicit?: string): string {
  return path.resolve(explicit ?? process.env.SWITCHYARD_GATEWAY_KEYS ?? DEFAULT_KEYS_FILE);
}

/** A key file that cannot be read or does not validate; `file` is where. */
export class KeyFileError extends Error {
  override readonly name = 'KeyFileError';
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(message);
  }
}

export interface KeyStoreOptions {
  /** @default {@link keysPath}() */
  readonly file?: string;
  /**
   * How often a gateway looks at the file for changes (a key made or revoked by another process), in
   * milliseconds. @default 1000
   */
  readonly recheckMs?: number;
}

/**
 * Keys live in one JSON file of hashes, not in Temporal: checking a key needs no worker to answer a query and
 * adds no history, the file holds nothing secret (so it can be mounted into every gateway, or kept in a config
 * map), and a change — `switchyard keys create` / `revoke`, written whole by rename — reaches every gateway
 * reading it within `recheckMs`.
 */
export class KeyStore {
  readonly file: string;
  private readonly recheckMs: number;
  private keys: readonly StoredKey[] = [];
  private seen: { mtimeMs: number; size: number } | undefined;
  private checkedAt = Number.NEGATIVE_INFINITY;

  constructor(options: KeyStoreOptions = {}) {
    this.file = keysPath(options.file);
    this.recheckMs = options.recheckMs ?? 1_000;
  }

  /** The stored key `presented` was made from, if it is current; never throws for a bad key. */
  verify(presented: string): StoredKey | undefined {
    const id = keyIdOf(presented);
    if (id === undefined) return undefined;
    const stored = this.current().find((key) => key.id === id);
    if (!stored || stored.revokedAt !== undefined) return undefined;
    return keyMatches(presented, stored) ? stored : undefined;
  }

  /** Every key on file, revoked ones included. */
  list(): readonly StoredKey[] {
    return this.read().keys;
  }

  /** Makes a key, stores its hash, and returns the key text: the only time it is ever shown. */
  create(scope: Pick<StoredKey, 'routes' | 'budget' | 'label'>): { key: string; stored: StoredKey } {
    const file = this.read();
    const made = makeGatewayKey(scope);
    this.write({ ...file, keys: [...file.keys, made.stored] });
    return made;
  }

  /** Marks a key revoked; false when no key has that id. */
  revoke(id: string): boolean {
    const file = this.read();
    const target = file.keys.find((key) => key.id === id);
    if (!target) return false;
    const revokedAt = new Date().toISOString();
    this.write({
      ...file,
      keys: file.keys.map((key) => (key.id === id ? { ...key, revokedAt: key.revokedAt ?? revokedAt } : key)),
    });
    return true;
  }

  /** Reads the file again if it changed; a file that became unreadable keeps the last good keys. */
  private current(): readonly StoredKey[] {
    const now = Date.now();
    if (now - this.checkedAt < this.recheckMs) return this.keys;
    this.checkedAt = now;
    let stat: { mtimeMs: number; size: number };
    try {
      const { mtimeMs, size } = statSync(this.file);
      stat = { mtimeMs, size };
    } catch {
      this.keys = [];
      this.seen = undefined;
      return this.keys;
    }
    if (this.seen && this.seen.mtimeMs === stat.mtimeMs && this.seen.size === stat.size) return this.keys;
    try {
      this.keys = this.read().keys;
      this.seen = stat;
    } catch {
      // Half-edited by hand, say: keep serving the keys last read rather than refusing everyone.
    }
    return this.keys;
  }

  private read(): KeyFile {
    if (!existsSync(this.file)) return { version: 1, keys: [] };
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch (error) {
      throw new KeyFileError(
        `cannot read gateway key file ${this.file}: ${(error as Error).message}`,
        this.file,
      );
    }
    const parsed = KeyFileSchema.safeParse(value);
    if (!parsed.success) {
      throw new KeyFileError(
        `invalid gateway key file ${this.file}:\n${z.prettifyError(parsed.error)}`,
        this.file,
      );
    }
    return parsed.data;
  }

  private write(file: KeyFile): void {
    mkdirSync(path.dirname(this.file), { recursive: true });
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    // A rename is atomic: a gateway reading at the same moment sees the old file or the new, never half.
    renameSync(temporary, this.file);
    this.checkedAt = Number.NEGATIVE_INFINITY;
  }
}
