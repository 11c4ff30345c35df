// Finds or builds the Temporal server and its SQL schema tool from the Go module, pinned, cached per machine. Node side.
import { SwitchyardError } from '../config/branded-error';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { projectRoot } from './project-root';

/**
 * The pinned Temporal server release: the Go module `go.temporal.io/server` at this version, and the
 * `temporalio/server` / `temporalio/admin-tools` images of docker-compose.yml.
 */
export const TEMPORAL_SERVER_VERSION = '1.30.1';

const MODULE = 'go.temporal.io/server';
/** The packages built, and the names the release images give their binaries. */
const BINARIES = [
  { package: `${MODULE}/cmd/server`, built: 'server', name: 'temporal-server' },
  { package: `${MODULE}/cmd/tools/sql`, built: 'sql', name: 'temporal-sql-tool' },
] as const;
/** The release Makefile's build tags and settings (CGO off), plus -trimpath so the build does not depend on paths. */
const BUILD_TAGS = 'disable_grpc_modules';
/** Schema folders copied out of the module: what `temporal-sql-tool update-schema -d` reads. */
const SCHEMA_SUBDIRECTORY = path.join('schema', 'postgresql', 'v12');

/** A usable server install: two binaries and the PostgreSQL schema of the same release. */
export interface TemporalServerInstall {
  readonly version: string;
  /** Folder holding `bin/` and `schema/`. */
  readonly directory: string;
  readonly serverBinary: string;
  readonly sqlToolBinary: string;
  /** `schema/postgresql/v12`: its `temporal/versioned` and `visibility/versioned` feed `update-schema`. */
  readonly schemaDirectory: string;
}

export class TemporalServerBuildError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.TemporalServerBuildError';

  override readonly name = 'TemporalServerBuildError';
}

/** Where the project uses the server from: `<project>/.temporal/server/<version>` (git-ignored). */
export function temporalServerInstallDirectory(version = TEMPORAL_SERVER_VERSION): string {
  return path.join(projectRoot(), '.temporal', 'server', version);
}

/**
 * The per-machine build cache, outside any clone, keyed by version and platform:
 * `$SWITCHYARD_CACHE_DIR` (else `$XDG_CACHE_HOME/switchyard`, else `~/.cache/switchyard`)
 * `/temporal-server/<version>-<os>-<arch>`.
 */
export function temporalServerCacheDirectory(version = TEMPORAL_SERVER_VERSION): string {
  const base =
    process.env.SWITCHYARD_CACHE_DIR ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'switchyard');
  return path.join(base, 'temporal-server', `${version}-${process.platform}-${process.arch}`);
}

function installAt(directory: string, version: string): TemporalServerInstall {
  return {
    version,
    directory,
    serverBinary: path.join(directory, 'bin', 'temporal-server'),
    sqlToolBinary: path.join(directory, 'bin', 'temporal-sql-tool'),
    schemaDirectory: path.join(directory, SCHEMA_SUBDIRECTORY),
  };
}

/** Whether `directory` holds a complete install of `version` (the build writes `build.json` last). */
function isComplete(install: TemporalServerInstall): boolean {
  if (
    ![install.serverBinary, install.sqlToolBinary, install.schemaDirectory].every((file) => existsSync(file))
  )
    return false;
  try {
    const manifest = JSON.parse(readFileSync(path.join(install.directory, 'build.json'), 'utf8')) as {
      version?: string;
    };
    return manifest.version === install.version;
  } catch {
    return false;
  }
}

/** The project-local install if it is complete, else `undefined`; never builds. */
export function findTemporalServer(version = TEMPORAL_SERVER_VERSION): TemporalServerInstall | undefined {
  const local = installAt(temporalServerInstallDirectory(version), version);
  return isComplete(local) ? local : undefined;
}

export interface EnsureTemporalServerOptions {
  /** The release to build. @default {@link TEMPORAL_SERVER_VERSION} */
  readonly version?: string;
  /** Rebuild into the cache even when it holds this version. @default false */
  readonly rebuild?: boolean;
  /** Progress lines (not the Go build's own output, which goes to stderr). @default stderr */
  readonly log?: (line: string) => void;
}

/**
 * Returns the project-local install of the pinned server, filling it from the per-machine cache, and the cache
 * from `go install <module>@<version>` when it is empty. The first build takes minutes; later calls take
 * milliseconds, in any clone on the machine.
 */
export function ensureTemporalServer(options: EnsureTemporalServerOptions = {}): TemporalServerInstall {
  const version = options.version ?? TEMPORAL_SERVER_VERSION;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const local = installAt(temporalServerInstallDirectory(version), version);
  if (!options.rebuild && isComplete(local)) return local;

  const cached = installAt(temporalServerCacheDirectory(version), version);
  if (options.rebuild || !isComplete(cached)) {
    log(
      `Building Temporal server ${version} from ${MODULE} into ${cached.directory} (takes minutes, once per machine) …`,
    );
    const startedAt = Date.now();
    buildInto(cached.directory, version);
    log(`Built Temporal server ${version} in ${Math.round((Date.now() - startedAt) / 1000)} s.`);
  } else {
    log(`Temporal server ${version}: using the build cached in ${cached.directory}`);
  }
  copyInstall(cached, local);
  return local;
}

function goBinary(): string {
  const go = process.env.GO ?? 'go';
  const probe = spawnSync(go, ['version'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    throw new TemporalServerBuildError(
      `Building the Temporal server needs the Go toolchain (go 1.25 or later), and \`${go} version\` failed` +
        ` (${probe.error?.message ?? probe.stderr.trim()}). Install Go from https://go.dev/dl/ or set GO=/path/to/go.`,
    );
  }
  return go;
}

/** Builds both binaries and copies the schema into `directory`, via a sibling folder renamed into place. */
function buildInto(directory: string, version: string): void {
  const go = goBinary();
  const partial = `${directory}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  const bin = path.join(partial, 'bin');
  mkdirSync(bin, { recursive: true });
  const environment = { ...process.env, GOBIN: bin, CGO_ENABLED: '0', GOFLAGS: '-buildvcs=false' };
  try {
    execFileSync(
      go,
      [
        'install',
        '-trimpath',
        '-tags',
        BUILD_TAGS,
        ...BINARIES.map((binary) => `${binary.package}@v${version}`),
      ],
      { stdio: ['ignore', 'inherit', 'inherit'], env: environment },
    );
    for (const binary of BINARIES) renameSync(path.join(bin, binary.built), path.join(bin, binary.name));
    // `go install` left the module in the module cache; its schema folder is the one this server migrates to.
    const moduleInfo = JSON.parse(
      execFileSync(go, ['mod', 'download', '-json', `${MODULE}@v${version}`], {
        encoding: 'utf8',
        env: environment,
      }),
    ) as { Dir?: string };
    if (!moduleInfo.Dir)
      throw new TemporalServerBuildError(`go mod download did not report where ${MODULE} is`);
    cpSync(path.join(moduleInfo.Dir, SCHEMA_SUBDIRECTORY), path.join(partial, SCHEMA_SUBDIRECTORY), {
      recursive: true,
    });
    const reported = execFileSync(path.join(bin, 'temporal-server'), ['--version'], {
      encoding: 'utf8',
    }).trim();
    if (!reported.includes(version)) {
      throw new TemporalServerBuildError(`the built server reports "${reported}", not version ${version}`);
    }
    const goVersion = execFileSync(go, ['version'], { encoding: 'utf8' }).trim();
    writeFileSync(
      path.join(partial, 'build.json'),
      `${JSON.stringify(
        {
          version,
          module: `${MODULE}@v${version}`,
          packages: BINARIES.map((binary) => binary.package),
          go: goVersion,
          flags: ['-trimpath', '-tags', BUILD_TAGS, 'CGO_ENABLED=0'],
          serverReports: reported,
          // The build is reproducible: the same release and Go toolchain give these same digests.
          sha256: Object.fromEntries(
            BINARIES.map((binary) => [
              binary.name,
              createHash('sha256')
                .update(readFileSync(path.join(bin, binary.name)))
                .digest('hex'),
            ]),
          ),
          builtAt: new Date().toISOString(),
        },
        null,
        2,
      )}\n`,
    );
    rmSync(directory, { recursive: true, force: true });
    mkdirSync(path.dirname(directory), { recursive: true });
    renameSync(partial, directory);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    if (error instanceof TemporalServerBuildError) throw error;
    throw new TemporalServerBuildError(`building Temporal server ${version} failed: ${String(error)}`);
  }
}

/** Hard links where the cache and the project share a file system (no copy of ~200 MB), copies otherwise. */
function copyInstall(from: TemporalServerInstall, to: TemporalServerInstall): void {
  const partial = `${to.directory}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(path.join(partial, 'bin'), { recursive: true });
  for (const binary of BINARIES) {
    const source = path.join(from.directory, 'bin', binary.name);
    const target = path.join(partial, 'bin', binary.name);
    try {
      linkSync(source, target);
    } catch {
      cpSync(source, target);
    }
  }
  cpSync(path.join(from.directory, 'schema'), path.join(partial, 'schema'), { recursive: true });
  cpSync(path.join(from.directory, 'build.json'), path.join(partial, 'build.json'));
  rmSync(to.directory, { recursive: true, force: true });
  mkdirSync(path.dirname(to.directory), { recursive: true });
  renameSync(partial, to.directory);
}
