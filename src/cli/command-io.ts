// The streams a command reads and writes, injectable so tests run commands in-process. Node side.

/** Anything text can be written to: `process.stdout`, or a collector in tests. */
export interface TextOutput {
  write(text: string): unknown;
}

export interface CommandIo {
  /** Results: answers, tables, JSON. */
  readonly stdout: TextOutput;
  /** Diagnostics: errors, hints, and the routing record beside an answer. */
  readonly stderr: TextOutput;
  /** Where a prompt of `-` is read from; `isTTY` tells whether an absent prompt may be read from it. */
  readonly stdin: AsyncIterable<string | Buffer> & { readonly isTTY?: boolean };
}

export function processIo(): CommandIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin };
}
