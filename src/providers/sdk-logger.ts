// The logger handed to the provider SDKs: their messages, never the bodies and chunks logged beside them. Worker side.

import type { SecretScrubber } from './secret-scrubber';

type LogFunction = (message: string, ...rest: unknown[]) => void;

/** The logger shape both `openai` and `@anthropic-ai/sdk` accept as their `logger` option. */
export interface SdkLogger {
  readonly error: LogFunction;
  readonly warn: LogFunction;
  readonly info: LogFunction;
  readonly debug: LogFunction;
}

export type SdkLogLevel = keyof SdkLogger;

/** Writes one line at a level. @default `console[level]`, as the SDKs' own default logger does */
export type SdkLogWriter = (level: SdkLogLevel, line: string) => void;

const toConsole: SdkLogWriter = (level, line) => console[level](line);

/**
 * A logger that keeps the SDK's message and drops every further argument. The SDKs log what they received
 * next to a fixed message: a stream chunk that is not JSON, at `error` and so by default; request and
 * response bodies at `debug` (`OPENAI_LOG` / `ANTHROPIC_LOG`). Those arguments can hold the prompt and
 * provider text that echoes it or the API key, and worker logs must hold neither. The message itself names
 * the provider's request id (`[log_… x-request-id: …]`), which a provider may fill with anything, so it is
 * scrubbed of the configured keys. Which levels are written still follows the SDK's own setting.
 * @param sdk prefixes each line, e.g. `openai`
 * @param scrubber removes the configured keys from each line @default none
 */
export function messageOnlyLogger(
  sdk: string,
  write: SdkLogWriter = toConsole,
  scrubber?: SecretScrubber,
): SdkLogger {
  const scrub = (line: string) => (scrubber ? scrubber.text(line) : line);
  const at =
    (level: SdkLogLevel): LogFunction =>
    (message) =>
      write(level, scrub(`${sdk}: ${String(message)}`));
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}
