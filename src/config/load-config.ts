// Reads and validates the config file; every problem is reported with its path. Node side (file I/O).
import { SwitchyardError } from './branded-error';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConfigSchema, type Config } from './config';
import { prettifyIssues, spreadUnknownKeys } from './strict-object';

/** Config file used when neither an explicit path nor `SWITCHYARD_CONFIG` is given. */
export const DEFAULT_CONFIG_FILE = 'switchyard.config.json';

export class ConfigError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.ConfigError';

  override readonly name = 'ConfigError';
  constructor(
    message: string,
    readonly file: string | undefined,
    /** zod issues, when the file parsed but did not validate. */
    readonly issues: readonly z.core.$ZodIssue[] = [],
  ) {
    super(message);
  }
}

/** Validates a config object; throws {@link ConfigError} naming every invalid field. */
export function parseConfig(value: unknown, file?: string): Config {
  const parsed = ConfigSchema.safeParse(value);
  if (!parsed.success) {
    const where = file ? ` in ${file}` : '';
    // Each unknown key becomes its own issue at its own path, so `issues` names every field to fix.
    throw new ConfigError(
      `Invalid Switchyard config${where}:\n${prettifyIssues(parsed.error)}`,
      file,
      spreadUnknownKeys(parsed.error.issues),
    );
  }
  return parsed.data;
}

/** The config file path: the argument, else `SWITCHYARD_CONFIG`, else `./switchyard.config.json`. */
export function configPath(explicit?: string): string {
  return path.resolve(explicit ?? process.env.SWITCHYARD_CONFIG ?? DEFAULT_CONFIG_FILE);
}

/**
 * The config a client checks calls against before starting them: the file named by `explicit` or
 * `SWITCHYARD_CONFIG`, which must load (a missing, empty or invalid file throws {@link ConfigError}); else
 * `./switchyard.config.json` when it exists; else `undefined`, for a client away from the workers' config,
 * which leaves the checks to the workers.
 */
export function loadConfigIfPresent(explicit?: string): Config | undefined {
  const named = explicit ?? process.env.SWITCHYARD_CONFIG;
  if (named === undefined && !existsSync(configPath())) return undefined;
  return loadConfig(named);
}

export function loadConfig(file?: string): Config {
  const resolved = configPath(file);
  let text: string;
  try {
    text = readFileSync(resolved, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `Cannot read Switchyard config ${resolved}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      resolved,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      `Switchyard config ${resolved} is not valid JSON: ${(error as Error).message}`,
      resolved,
    );
  }
  return parseConfig(value, resolved);
}
