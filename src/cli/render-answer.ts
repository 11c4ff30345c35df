// Renders a routed call's answer for a terminal: its text, its tool calls, a summary of its reasoning. Pure.
import type { AnswerContent } from '../config/conversation';

/**
 * The answer as `call` prints it on stdout: the text, then one line per tool call with its name, its id (a tool
 * result names the id it answers, so a `--request` of the next turn needs it) and its arguments as sent.
 */
export function renderAnswer(answer: AnswerContent): string {
  const lines: string[] = [];
  if (answer.text) lines.push(answer.text.endsWith('\n') ? answer.text.slice(0, -1) : answer.text);
  for (const call of answer.toolCalls) lines.push(`[tool call ${call.name} ${call.id}] ${call.arguments}`);
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

/**
 * One line on what reasoning the answer carries, or undefined without any. The reasoning itself is not printed
 * (it can be long, and a redacted part has no text): `--json` has it whole, to send back in a next turn.
 */
export function renderReasoningSummary(answer: AnswerContent): string | undefined {
  const parts = answer.reasoning ?? [];
  if (parts.length === 0) return undefined;
  const characters = parts.reduce((sum, part) => sum + part.text.length, 0);
  const signed = parts.filter((part) => part.signature !== undefined).length;
  const redacted = parts.filter((part) => part.redactedData !== undefined).length;
  const origins = [...new Set(parts.map((part) => part.origin ?? 'unknown origin'))].join(', ');
  const details = [
    `${characters} characters`,
    ...(signed > 0 ? [`${signed} signed`] : []),
    ...(redacted > 0 ? [`${redacted} redacted`] : []),
  ];
  const count = parts.length === 1 ? '1 part' : `${parts.length} parts`;
  return `reasoning: ${count} from ${origins} (${details.join(', ')}); --json prints it`;
}
