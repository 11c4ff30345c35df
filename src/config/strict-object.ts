// Objects that refuse unknown keys, naming the nearest known key; and the formatter for their issues. Workflow-safe (zod only).
import { z } from 'zod';
import { nearestKey } from './nearest-key';

/**
 * The message of one unknown key: `unknown key "maxAttempt" (did you mean "maxAttempts"?)`, or the known keys
 * when none is near.
 */
export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const near = nearestKey(key, known);
  if (near !== undefined) return `unknown key "${key}" (did you mean "${near}"?)`;
  return `unknown key "${key}" (known keys: ${known.join(', ') || 'none'})`;
}

/**
 * `z.strictObject` whose unknown keys are refused by name with the nearest known key: a typo such as
 * `failureTreshold` must not be dropped silently, leaving the default in force. An issue with several keys
 * holds one message line per key, in the issue's key order ({@link spreadUnknownKeys} relies on it).
 */
export function strictObject<const Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => unknownKeyMessage(key, known)).join('\n')
        : undefined,
  });
}

/** Whether a union branch failed only because the value is of another type altogether (a string, not parts). */
function wrongTypeOnly(branch: readonly z.core.$ZodIssue[]): boolean {
  return branch.every((issue) => issue.code === 'invalid_type' && issue.path.length === 0);
}

/**
 * A union's issue replaced by the issues of the one branch the value was meant for, when every other branch
 * failed only on the value's type: `content` given as parts is judged as parts, so the error names the part at
 * fault (`messages.0.content.1.data`) instead of "invalid input" at `messages.0.content`.
 */
function unwrapUnion(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [issue];
  const meant = issue.errors.filter((branch) => !wrongTypeOnly(branch));
  if (meant.length !== 1) return [issue];
  return meant[0]!.flatMap((inner) => unwrapUnion({ ...inner, path: [...issue.path, ...inner.path] }));
}

/**
 * The issues with each unknown key as its own issue, its path ending at the key
 * (`routes.r.breaker.failureTreshold`), and each union judged by the branch the value was meant for, so the first
 * issue's path names the field to fix.
 */
export function spreadUnknownKeys(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  return issues.flatMap(unwrapUnion).flatMap((issue): z.core.$ZodIssue[] => {
    if (issue.code !== 'unrecognized_keys') return [issue];
    const lines = issue.message.split('\n');
    // A message from elsewhere (not one line per key) stays whole, at the object.
    if (lines.length !== issue.keys.length) return [issue];
    return issue.keys.map((key, index) => ({
      ...issue,
      keys: [key],
      path: [...issue.path, key],
      message: lines[index]!,
    }));
  });
}

/** `z.prettifyError` with every unknown key shown at its own path. */
export function prettifyIssues(error: z.ZodError): string {
  return z.prettifyError(new z.ZodError(spreadUnknownKeys(error.issues)));
}

/** The dotted path of the first issue (`request.temperature`, `routes.r.maxAttempt`), or '' for the root. */
export function firstIssueField(error: z.ZodError): string {
  return spreadUnknownKeys(error.issues)[0]?.path.join('.') ?? '';
}
