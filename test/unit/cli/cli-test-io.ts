// Test helpers for the CLI: captured stdout/stderr, scripted stdin, and a valid config file in a tmp dir.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { ConfigInput } from '../../../src/config/config';
import type { CommandIo } from '../../../src/cli/command-io';
import { main } from '../../../src/cli/main';

export interface CapturedIo extends CommandIo {
  readonly out: () => string;
  readonly err: () => string;
}

/** A terminal stdin: reading it is a bug, because a command must never wait on a person typing. */
export const terminalStdin: CommandIo['stdin'] = {
  isTTY: true,
  [Symbol.asyncIterator]() {
    throw new Error('stdin is a terminal and must not be read');
  },
};

/** A pipe that nobody writes to: reading it would hang, so this one throws instead. */
export const idlePipeStdin: CommandIo['stdin'] = {
  isTTY: false,
  [Symbol.asyncIterator]() {
    throw new Error('stdin is an idle pipe and must not be read');
  },
};

export function pipedStdin(text: string): CommandIo['stdin'] {
  return Object.assign(Readable.from([Buffer.from(text)]), { isTTY: false });
}

export function captureIo(stdin: CommandIo['stdin'] = terminalStdin): CapturedIo {
  let out = '';
  let err = '';
  return {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    stdin,
    out: () => out,
    err: () => err,
  };
}

/** Runs the CLI in-process. */
export async function run(argv: readonly string[], stdin?: CommandIo['stdin']) {
  const io = captureIo(stdin);
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

export const TEST_CONFIG: ConfigInput = {
  providers: {
    openai: {
      kind: 'openai',
      apiKeyEnv: 'OPENAI_API_KEY',
      models: { 'gpt-4o-mini': { inputUsdPerMillion: 0.15, outputUsdPerMillion: 0.6 } },
    },
    anthropic: {
      kind: 'anthropic',
      apiKeyEnv: 'ANTHROPIC_API_KEY',
      models: { 'claude-haiku-4-5': { inputUsdPerMillion: 1, outputUsdPerMillion: 5 } },
    },
  },
  routes: {
    support: {
      targets: [
        { provider: 'anthropic', model: 'claude-haiku-4-5', retries: 1 },
        { provider: 'openai', model: 'gpt-4o-mini', timeoutMs: 20_000 },
      ],
      deadlineMs: 90_000,
    },
    cheap: { targets: [{ provider: 'openai', model: 'gpt-4o-mini' }] },
  },
  defaultRoute: 'support',
};

/** Writes `content` (JSON-encoded unless a string) to a fresh tmp dir and returns the file's path. */
export function writeTempFile(name: string, content: unknown): string {
  const directory = mkdtempSync(path.join(tmpdir(), 'switchyard-cli-'));
  const file = path.join(directory, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}
