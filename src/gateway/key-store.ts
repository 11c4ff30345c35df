// The gateway key store: hashes and scopes of the keys Switchyard issued, checked by every gateway reading the file. Node side.
import { statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { GatewayError, GatewayErrorKind } from './gateway-error';
import { keyIdOf, keyMatches, makeGatewayKey, type StoredKey } from './gateway-key';
import { changeKeyFile } from './keys-file-change';
import type { KeysFileLockOptions } from './keys-file-lock';
import { KeyFileError, readKeyFile } from './keys-file';

export { KeyFileError } from './keys-file';
export { KeyChangeError } from './keys-file-lock';

/** Key file used when neither an explicit path nor `SWITCHYARD_GATEWAY_KEYS` is given. */
export const DEFAULT_KEYS_FILE = 'switchyard.keys.json';

/** Environment variable giving {@link KeyStoreOptions.unreadableGraceMs} to every store that is not given it. */
export const KEYS_GRACE_VARIABLE = 'SWITCHYARD_GATEWAY_KEYS_GRACE_MS';

const DEFAULT_UNREADABLE_GRACE_MS = 30_000;

/** The key file path: the argument, else `SWITCHYARD_GATEWAY_KEYS`, else `./switchyard.keys.json`. */
export function keysPath(explicit?: string): string {
  return path.resolve(explicit ?? process.env.SWITCHYARD_GATEWAY_KEYS ?? DEFAULT_KEYS_FILE);
}

export interface KeyStoreOptions {
  /** @default {@link keysPath}() */
  readonly file?: string;
  /**
   * How often a gateway looks at the file for changes (a key made or revoked by another process), in
   * milliseconds. @default 1000
   */
  readonly recheckMs?: number;
  /**
   * How long a gateway goes on serving the keys it last read once the file has become unreadable or invalid,
   * in milliseconds: time to notice a hand edit's slip and fix it without an outage. After it every key is
   * refused, revoked ones included, until the file is good again. 0 refuses at once.
   * @default `SWITCHYARD_GATEWAY_KEYS_GRACE_MS`, else 30000
   */
  readonly unreadableGraceMs?: number;
  /**
   * Receives one line per change in the file's health (broken, refusing, good again); never key material.
   * @default a timestamped line on stderr
   */
  readonly log?: (line: string) => void;
  /** How `create` and `revoke` wait for the file's lock. @default see {@link KeysFileLockOptions} */
  readonly lock?: KeysFileLockOptions;
}

/** What a gateway makes of its key file, for `/healthz`. */
export interface KeysFileHealth {
  /**
   * `ok`: the keys in force are the file's. `stale`: the file is unreadable and the keys last read still serve,
   * until `refusingFrom`. `unreadable`: the grace is over and every key is refused.
   */
  readonly status: 'ok' | 'stale' | 'unreadable';
  /** What is wrong with the file, without its path or any of its text. */
  readonly reason?: string;
  /** ISO time the file was first found unreadable. */
  readonly since?: string;
  /** ISO time every key is (or will be) refused from, while the file stays unreadable. */
  readonly refusingFrom?: string;
}

/** What identifies one version of the file: a rename changes the inode, a chmod the ctime. */
interface FileStamp {
  readonly inode: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly size: number;
}

function stampOf(stats: Stats): FileStamp {
  return { inode: stats.ino, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, size: stats.size };
}

function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.inode === b.inode && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.size === b.size;
}

function graceFromEnvironment(): number {
  const text = process.env[KEYS_GRACE_VARIABLE];
  if (text === undefined || text === '') return DEFAULT_UNREADABLE_GRACE_MS;
  if (!/^\d+$/.test(text)) {
    throw new Error(`${KEYS_GRACE_VARIABLE} must be a whole number of milliseconds, got "${text}"`);
  }
  return Number(text);
}

function logToStderr(line: string): void {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
}

interface FileProblem {
  readonly reason: string;
  readonly sinceMs: number;
  refusalLogged: boolean;
}

/**
 * Keys live in one JSON file of hashes, not in Temporal: checking a key needs no worker to answer a query and
 * adds no history, the file holds no key (so it can be mounted into every gateway, or kept in a config map),
 * and a change — `switchyard keys create` / `revoke`, made under the file's lock and written whole by rename —
 * reaches every gateway reading it within `recheckMs`.
 */
export class KeyStore {
  readonly file: string;
  private readonly recheckMs: number;
  private readonly unreadableGraceMs: number;
  private readonly log: (line: string) => void;
  private readonly lockOptions: KeysFileLockOptions;
  private keys: readonly StoredKey[] = [];
  private seen: FileStamp | undefined;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private problem: FileProblem | undefined;

  constructor(options: KeyStoreOptions = {}) {
    this.file = keysPath(options.file);
    this.recheckMs = options.recheckMs ?? 1_000;
    this.unreadableGraceMs = options.unreadableGraceMs ?? graceFromEnvironment();
    this.log = options.log ?? logToStderr;
    this.lockOptions = options.lock ?? {};
  }

  /**
   * The stored key `presented` was made from, if it is current; never throws for a bad key. Throws a
   * {@link GatewayError} (authentication, `keys_file_unreadable`) for every key once the file has been
   * unreadable for longer than the grace: a revoked key must not outlive a broken file.
   */
  verify(presented: string): StoredKey | undefined {
    this.refresh();
    if (this.refusingAll()) {
      throw new GatewayError(
        "the gateway's key file is unreadable, so every key is refused until its operator fixes it",
        GatewayErrorKind.authentication,
        'keys_file_unreadable',
      );
    }
    const id = keyIdOf(presented);
    if (id === undefined) return undefined;
    const stored = this.keys.find((key) => key.id === id);
    if (!stored || stored.revokedAt !== undefined) return undefined;
    return keyMatches(presented, stored) ? stored : undefined;
  }

  /** The file's health as this store last found it (looking again if `recheckMs` has passed). */
  health(): KeysFileHealth {
    this.refresh();
    const problem = this.problem;
    if (!problem) return { status: 'ok' };
    return {
      status: this.refusingAll() ? 'unreadable' : 'stale',
      reason: problem.reason,
      since: new Date(problem.sinceMs).toISOString(),
      refusingFrom: new Date(problem.sinceMs + this.unreadableGraceMs).toISOString(),
    };
  }

  /** Every key on file, revoked ones included; throws {@link KeyFileError} when the file is unreadable. */
  list(): readonly StoredKey[] {
    return readKeyFile(this.file).keys;
  }

  /**
   * Makes a key, stores its hash, checks the file holds it, and returns the key text: the only time it is
   * ever shown. Throws `KeyChangeError` when it could not be stored (the key is then shown nowhere).
   */
  create(scope: Pick<StoredKey, 'routes' | 'budget' | 'label' | 'maxOutputTokens'>): {
    key: string;
    stored: StoredKey;
  } {
    let made = makeGatewayKey(scope);
    const result = changeKeyFile(
      this.file,
      {
        what: 'the new key',
        change: (current) => {
          // 48 random bits of id: a clash is unlikely, and would make the older key unusable.
          while (current.keys.some((key) => key.id === made.stored.id)) made = makeGatewayKey(scope);
          return { next: { ...current, keys: [...current.keys, made.stored] }, result: made };
        },
        holds: (written) =>
          written.keys.some(
            (key) =>
              key.id === made.stored.id && key.sha256 === made.stored.sha256 && key.revokedAt === undefined,
          ),
      },
      this.lockOptions,
    );
    this.checkedAt = Number.NEGATIVE_INFINITY;
    return result;
  }

  /**
   * Marks a key revoked and checks the file says so; false when no key has that id. Throws `KeyChangeError`
   * when the revocation could not be stored: the key may still be valid.
   */
  revoke(id: string): boolean {
    const result = changeKeyFile(
      this.file,
      {
        what: `the revocation of key ${id}`,
        change: (current) => {
          const target = current.keys.find((key) => key.id === id);
          if (!target) return { result: false };
          if (target.revokedAt !== undefined) return { result: true };
          const revokedAt = new Date().toISOString();
          const keys = current.keys.map((key) => (key.id === id ? { ...key, revokedAt } : key));
          return { next: { ...current, keys }, result: true };
        },
        holds: (written) => written.keys.some((key) => key.id === id && key.revokedAt !== undefined),
      },
      this.lockOptions,
    );
    this.checkedAt = Number.NEGATIVE_INFINITY;
    return result;
  }

  /** Reads the file again if `recheckMs` has passed and it changed, or if it was unreadable last time. */
  private refresh(): void {
    const now = Date.now();
    if (now - this.checkedAt < this.recheckMs) return;
    this.checkedAt = now;
    let stamp: FileStamp;
    try {
      stamp = stampOf(statSync(this.file));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        // No file is no keys: the state before the first `keys create`, and a safe one after a deletion.
        if (this.seen)
          this.log(`gateway key file ${this.file} is gone: every key is refused until it is back`);
        this.keys = [];
        this.seen = undefined;
        this.recovered();
      } else this.failed(`cannot be read (${code ?? 'error'})`);
      return;
    }
    if (!this.problem && this.seen && sameStamp(this.seen, stamp)) return;
    try {
      this.keys = readKeyFile(this.file).keys;
      this.seen = stamp;
      this.recovered();
    } catch (error) {
      this.failed(error instanceof KeyFileError ? error.reason : 'cannot be read');
    }
  }

  private failed(reason: string): void {
    if (this.problem?.reason === reason) return;
    const sinceMs = this.problem?.sinceMs ?? Date.now();
    this.problem = { reason, sinceMs, refusalLogged: false };
    const until = new Date(sinceMs + this.unreadableGraceMs).toISOString();
    this.log(
      `error: gateway key file ${this.file}: ${reason}; the ${this.keys.length} keys last read serve until ` +
        `${until}, then every key is refused until the file is fixed`,
    );
  }

  private recovered(): void {
    if (!this.problem) return;
    this.problem = undefined;
    this.log(`gateway key file ${this.file} is good again: ${this.keys.length} keys on file are in force`);
  }

  /** Whether the file has been unreadable past the grace; says so in the log once. */
  private refusingAll(): boolean {
    const problem = this.problem;
    if (!problem || Date.now() < problem.sinceMs + this.unreadableGraceMs) return false;
    if (!problem.refusalLogged) {
      problem.refusalLogged = true;
      this.log(
        `error: gateway key file ${this.file}: ${problem.reason}; refusing every key until it is fixed`,
      );
    }
    return true;
  }
}
