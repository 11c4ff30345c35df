// Exit codes of the `switchyard` command: stable numbers that scripts can branch on. Node side.

/** Every code the CLI exits with; anything else comes from Node itself (e.g. a crash). */
export const ExitCode = {
  /** The command did what was asked (for `call`: an answer was printed). */
  ok: 0,
  /** The routed call ended without an answer (a `RoutedCallError`), or another failure at run time. */
  callFailed: 1,
  /** Bad arguments, an unknown command or flag, or a request the schema refuses. */
  usage: 2,
  /** The config file is missing, not JSON, or invalid. */
  config: 3,
  /** The Temporal front end could not be reached. */
  temporalUnreachable: 4,
  /** Stopped by SIGINT / SIGTERM before the answer arrived (128 + SIGINT, the shell convention). */
  interrupted: 130,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
