// Finds PostgreSQL's server binaries (installing Debian's package where it may), and runs a throwaway server. Node side.
import { SwitchyardError } from '../config/branded-error';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from './free-port';

/** The Debian package installed when no PostgreSQL server is found: bookworm's is PostgreSQL 15. */
export const POSTGRES_DEBIAN_PACKAGE = 'postgresql';

export class PostgresNotFoundError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.PostgresNotFoundError';

  override readonly name = 'PostgresNotFoundError';
}

/** The server programs of one PostgreSQL installation. */
export interface PostgresBinaries {
  readonly directory: string;
  readonly initdb: string;
  readonly postgres: string;
  readonly pgIsReady: string;
  /** The major version, e.g. 15. */
  readonly majorVersion: number;
}

function binariesIn(directory: string): PostgresBinaries | undefined {
  const initdb = path.join(directory, 'initdb');
  const postgres = path.join(directory, 'postgres');
  const pgIsReady = path.join(directory, 'pg_isready');
  if (![initdb, postgres, pgIsReady].every((file) => existsSync(file))) return undefined;
  const reported = spawnSync(postgres, ['--version'], { encoding: 'utf8' });
  const major = /(\d+)(?:\.\d+)?/.exec(reported.stdout ?? '');
  if (reported.status !== 0 || !major) return undefined;
  return { directory, initdb, postgres, pgIsReady, majorVersion: Number(major[1]) };
}

/**
 * PostgreSQL's server programs: `SWITCHYARD_POSTGRES_BIN` (a folder holding `initdb`, `postgres` and `pg_isready`), else the
 * newest `/usr/lib/postgresql/<major>/bin` (Debian and Ubuntu), else `initdb` on PATH.
 */
export function findPostgres(): PostgresBinaries | undefined {
  const fromEnvironment = process.env.SWITCHYARD_POSTGRES_BIN;
  if (fromEnvironment) {
    const found = binariesIn(fromEnvironment);
    if (!found)
      throw new PostgresNotFoundError(
        `SWITCHYARD_POSTGRES_BIN is ${fromEnvironment}, which holds no usable initdb, postgres and pg_isready.`,
      );
    return found;
  }
  const debianRoot = '/usr/lib/postgresql';
  if (existsSync(debianRoot)) {
    const majors = readdirSync(debianRoot)
      .filter((name) => /^\d+$/.test(name))
      .sort((left, right) => Number(right) - Number(left));
    for (const major of majors) {
      const found = binariesIn(path.join(debianRoot, major, 'bin'));
      if (found) return found;
    }
  }
  const onPath = spawnSync('which', ['initdb'], { encoding: 'utf8' });
  const initdb = onPath.status === 0 ? onPath.stdout.trim() : '';
  return initdb ? binariesIn(path.dirname(initdb)) : undefined;
}

const MANUAL_INSTALL_HELP = [
  'Install the PostgreSQL server, then run again:',
  `  Debian / Ubuntu:  sudo apt-get install -y ${POSTGRES_DEBIAN_PACKAGE}`,
  '  elsewhere: any PostgreSQL 12 or later, with SWITCHYARD_POSTGRES_BIN=/path/to/its/bin',
].join('\n');

/**
 * Returns PostgreSQL's server programs, installing Debian's `postgresql` package with apt-get when none is found
 * and this process may (root on a Debian-like system). The package's own cluster is not created: the engine runs
 * its servers from throwaway data folders.
 */
export function ensurePostgres(options: { readonly log?: (line: string) => void } = {}): PostgresBinaries {
  const found = findPostgres();
  if (found) return found;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const canInstall =
    process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (!canInstall) throw new PostgresNotFoundError(`No PostgreSQL server found.\n${MANUAL_INSTALL_HELP}`);
  // Without this, the package creates and starts a system cluster on port 5432 that nothing here uses.
  const createClusterDirectory = '/etc/postgresql-common/createcluster.d';
  mkdirSync(createClusterDirectory, { recursive: true });
  writeFileSync(
    path.join(createClusterDirectory, 'switchyard-no-main-cluster.conf'),
    '# Written by Switchyard: its engine runs PostgreSQL from throwaway data folders.\ncreate_main_cluster = false\n',
  );
  log(`Installing PostgreSQL (Debian package ${POSTGRES_DEBIAN_PACKAGE}) with apt-get …`);
  const environment = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', POSTGRES_DEBIAN_PACKAGE], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: environment,
    }).status === 0;
  // A fresh machine may not have package lists yet.
  if (!install()) {
    execFileSync('apt-get', ['update'], { stdio: ['ignore', 'inherit', 'inherit'], env: environment });
    if (!install())
      throw new PostgresNotFoundError(`apt-get could not install PostgreSQL.\n${MANUAL_INSTALL_HELP}`);
  }
  const installed = findPostgres();
  if (!installed)
    throw new PostgresNotFoundError(`apt-get installed ${POSTGRES_DEBIAN_PACKAGE} but no server was found.`);
  return installed;
}

export interface LocalPostgresOptions {
  /** Loopback port. @default a free port */
  readonly port?: number;
  /** Superuser the server is created with (Temporal connects as it, as in docker-compose.yml). @default 'temporal' */
  readonly user?: string;
  /** The superuser's password. @default 'temporal' */
  readonly password?: string;
  /** Upper bound on connections; four Temporal services hold up to 30 each. @default 300 */
  readonly maxConnections?: number;
  /** How long to wait for the server to accept connections, in milliseconds. @default 60000 */
  readonly startupTimeoutMs?: number;
  /** Where the server's log goes. @default 'ignore' */
  readonly output?: 'ignore' | 'inherit';
}

export interface LocalPostgres {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly majorVersion: number;
  /** The data folder: a fresh temporary folder, removed by `stop()`. */
  readonly dataDirectory: string;
  readonly process: ChildProcess;
  /** Fast shutdown (SIGINT, then SIGKILL after 10 s), then removes the data folder. Idempotent. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
// A database must never outlive the process that started it, even when that process exits abruptly.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** The account PostgreSQL runs as: itself, or `postgres` when this process is root (postgres refuses root). */
function serverAccount(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) {
    throw new PostgresNotFoundError(
      'PostgreSQL cannot run as root, and there is no `postgres` account to run it as: create one (useradd -r postgres) or run as another user.',
    );
  }
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Creates a fresh cluster in a temporary folder and runs it on 127.0.0.1, TCP only, until `stop()`. */
export async function startLocalPostgres(options: LocalPostgresOptions = {}): Promise<LocalPostgres> {
  const binaries = ensurePostgres();
  const host = '127.0.0.1';
  const port = options.port ?? (await freePort(host));
  const user = options.user ?? 'temporal';
  const password = options.password ?? 'temporal';
  const account = serverAccount();
  const root = mkdtempSync(path.join(tmpdir(), 'switchyard-postgres-'));
  const dataDirectory = path.join(root, 'data');
  const passwordFile = path.join(root, 'password');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  const owned = account ? { uid: account.uid, gid: account.gid } : {};
  if (account) {
    chownSync(root, account.uid, account.gid);
    chownSync(passwordFile, account.uid, account.gid);
  }
  const remove = () => rmSync(root, { recursive: true, force: true });

  const initialised = spawnSync(
    binaries.initdb,
    [
      '--pgdata',
      dataDirectory,
      '--username',
      user,
      '--pwfile',
      passwordFile,
      '--auth-host',
      'scram-sha-256',
      '--auth-local',
      'peer',
      '--encoding',
      'UTF8',
      '--locale',
      'C',
    ],
    { encoding: 'utf8', ...owned },
  );
  rmSync(passwordFile, { force: true });
  if (initialised.status !== 0) {
    remove();
    throw new Error(
      `initdb failed (status ${initialised.status}): ${initialised.stderr || initialised.stdout}`,
    );
  }

  const output = options.output ?? 'ignore';
  const child = spawn(
    binaries.postgres,
    [
      '-D',
      dataDirectory,
      '-p',
      String(port),
      '-c',
      `listen_addresses=${host}`,
      // TCP only: no socket in /var/run/postgresql, which this account may not own.
      '-c',
      'unix_socket_directories=',
      '-c',
      `max_connections=${options.maxConnections ?? 300}`,
    ],
    { stdio: ['ignore', output, output], ...owned },
  );
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => running.delete(child));

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    remove();
  };

  try {
    await waitUntilAccepting(binaries.pgIsReady, host, port, options.startupTimeoutMs ?? 60_000, exited);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    host,
    port,
    user,
    password,
    majorVersion: binaries.majorVersion,
    dataDirectory,
    process: child,
    stop,
  };
}

/** Waits until `pg_isready` says the server accepts connections (past startup and recovery), or fails. */
async function waitUntilAccepting(
  pgIsReady: string,
  host: string,
  port: number,
  timeoutMs: number,
  exited: Promise<void>,
): Promise<void> {
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (hasExited)
      throw new Error(
        `postgres exited during startup (port ${port}); start it with output: 'inherit' to see why`,
      );
    const probe = spawnSync(pgIsReady, ['--host', host, '--port', String(port), '--timeout', '2'], {
      stdio: 'ignore',
    });
    if (probe.status === 0) return;
    await delay(200);
  }
  throw new Error(`PostgreSQL on ${host}:${port} did not accept connections within ${timeoutMs} ms`);
}
