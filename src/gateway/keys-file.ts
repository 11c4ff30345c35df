// The gateway keys file's format and how it is read, with errors that name the file but quote none of it. Node side.
import { SwitchyardError } from '../config/branded-error';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { StoredKeySchema } from './gateway-key';

export const KeyFileSchema = z.object({
  version: z.literal(1),
  keys: z.array(StoredKeySchema),
});
export type KeyFile = z.infer<typeof KeyFileSchema>;

/** What a file that does not exist yet holds: no keys. */
export const EMPTY_KEY_FILE: KeyFile = { version: 1, keys: [] };

/** A key file that cannot be read or does not validate; `file` is where, `reason` what is wrong (no path). */
export class KeyFileError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.KeyFileError';

  override readonly name = 'KeyFileError';
  constructor(
    message: string,
    readonly file: string,
    /** What is wrong, without the path and without any text of the file: safe to show on `/healthz`. */
    readonly reason: string = message,
  ) {
    super(message);
  }
}

/**
 * Why `JSON.parse` refused `text`, without quoting it. V8's messages quote the text around the fault
 * (`Unexpected token 's', "sy_3f9a1c…"… is not valid JSON`), which may be a key pasted into the wrong
 * file: only the kind of fault and its line and column are kept.
 */
export function describeJsonSyntaxError(message: string, text: string): string {
  const fault = message.split(/, "| in JSON| is not valid JSON/)[0]!.trim();
  const safeFault = fault.includes('"') || fault.length > 80 ? 'syntax error' : fault;
  const position = /at position (\d+)/.exec(message)?.[1];
  if (position === undefined) return `not valid JSON: ${safeFault}`;
  const before = text.slice(0, Number(position));
  const line = before.split('\n').length;
  const column = Number(position) - before.lastIndexOf('\n');
  return `not valid JSON: ${safeFault} at line ${line}, column ${column}`;
}

/**
 * The keys file's content. A file that does not exist holds no keys; one that cannot be read, is not JSON or
 * does not validate throws {@link KeyFileError}.
 */
export function readKeyFile(file: string): KeyFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY_KEY_FILE;
    // Node's fs messages are `EACCES: permission denied, open '<path>'`: the code says it without the path.
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const reason = `cannot be read (${code})`;
    throw new KeyFileError(`gateway key file ${file}: ${reason}`, file, reason);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = describeJsonSyntaxError((error as Error).message, text);
    throw new KeyFileError(`gateway key file ${file}: ${reason}`, file, reason);
  }
  const parsed = KeyFileSchema.safeParse(value);
  if (!parsed.success) {
    // zod's messages name the rule broken and the type found, never the value found there.
    const issues = parsed.error.issues.map(
      (issue) => `${issue.message} at ${issue.path.length > 0 ? issue.path.join('.') : 'the top level'}`,
    );
    const reason = `not a valid key file: ${issues.join('; ')}`;
    throw new KeyFileError(`gateway key file ${file}: ${reason}`, file, reason);
  }
  return parsed.data;
}
