// Reads `--request <path|->`: a whole generation request as JSON, from a file or stdin. Node side (file I/O).
import { readFile } from 'node:fs/promises';
import type { GenerationRequestInput } from '../config/request';
import { UsageError } from './cli-errors';
import type { CommandIo } from './command-io';

async function readStdin(stdin: CommandIo['stdin']): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The request `source` holds (a path, or `-` for stdin). Only its JSON shape is checked here; the request
 * schema checks its fields later and names the one at fault.
 */
export async function readRequestFile(
  source: string,
  stdin: CommandIo['stdin'],
): Promise<GenerationRequestInput> {
  const where = source === '-' ? '--request - (stdin)' : `--request ${source}`;
  let text: string;
  try {
    text = source === '-' ? await readStdin(stdin) : await readFile(source, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--request cannot be read: ${source}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${where} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${where} must hold a JSON object: a request with its "messages"`);
  }
  if (!('messages' in value)) {
    // A whole call (as `schedule create --request` takes) is the likely mix-up: say where its parts go.
    const hint =
      'request' in value
        ? '; it looks like a whole call: give its "request" alone, and --route, --budget as flags'
        : '';
    throw new UsageError(
      `${where} has no "messages": it must hold a request (messages, tools, options)${hint}`,
    );
  }
  return value as GenerationRequestInput;
}
