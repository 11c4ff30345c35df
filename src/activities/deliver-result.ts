// The deliverResult activity: POSTs a scheduled run's outcome to a webhook, or writes it to a directory. Worker side.
import { randomUUID } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  deliveredFileName,
  webhookOrigin,
  type ScheduledCallOutcome,
} from '../workflows/scheduled-generation/definitions';

/** Failure types of a delivery attempt; `WebhookRejected` is not retried. */
export const DeliveryFailureType = {
  /** The receiver answered 4xx (other than 408/429) or redirected: sending again would not help. */
  webhookRejected: 'WebhookRejected',
  /** No answer, a network error, 408, 429 or 5xx: retried by the activity's retry policy. */
  webhookUnavailable: 'WebhookUnavailable',
  /** The directory or file could not be written. */
  directoryUnwritable: 'DirectoryUnwritable',
} as const;

export type DeliveryTarget =
  | { readonly kind: 'webhook'; readonly url: string }
  | { readonly kind: 'directory'; readonly path: string };

export interface DeliverResultInput {
  readonly target: DeliveryTarget;
  /** The scheduled run's workflow id: the webhook's `Idempotency-Key` and the file's name. */
  readonly idempotencyKey: string;
  readonly outcome: ScheduledCallOutcome;
}

export interface DeliveryReceipt {
  /** Which attempt of the activity delivered it (1 on the first try). */
  readonly attempts: number;
  /** The webhook's HTTP status. */
  readonly status?: number;
  /** The file written. */
  readonly file?: string;
}

export interface DeliverResultOptions {
  /** How long one webhook POST may take, in milliseconds. @default 10000 */
  readonly webhookTimeoutMs?: number;
}

/** Statuses worth sending again: the receiver is busy or down, not refusing this body. */
function retryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

async function postWebhook(
  input: DeliverResultInput,
  url: string,
  timeoutMs: number,
  attempt: number,
): Promise<DeliveryReceipt> {
  const where = webhookOrigin(url);
  const signal = AbortSignal.any([Context.current().cancellationSignal, AbortSignal.timeout(timeoutMs)]);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        // Retries and a worker lost mid-request can send the same result again; the key lets the receiver drop repeats.
        'idempotency-key': input.idempotencyKey,
        'user-agent': 'switchyard',
        'switchyard-schedule-id': input.outcome.scheduleId,
        'switchyard-outcome': input.outcome.outcome,
      },
      body: JSON.stringify(input.outcome),
      // A redirected POST may turn into a GET; the configured URL should be the final one.
      redirect: 'manual',
      signal,
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    const reason = signal.aborted ? `no answer within ${timeoutMs} ms` : (cause?.code ?? String(error));
    throw ApplicationFailure.retryable(
      `webhook ${where} unreachable: ${reason}`,
      DeliveryFailureType.webhookUnavailable,
    );
  }
  // The body is not needed; reading it frees the connection.
  await response.arrayBuffer().catch(() => undefined);
  if (response.ok) return { attempts: attempt, status: response.status };
  const message = `webhook ${where} answered ${response.status}`;
  if (retryableStatus(response.status)) {
    throw ApplicationFailure.retryable(message, DeliveryFailureType.webhookUnavailable);
  }
  throw ApplicationFailure.nonRetryable(message, DeliveryFailureType.webhookRejected);
}

/** Writes the file under a temporary name, flushes it, then renames it: readers never see half a result. */
async function writeResultFile(input: DeliverResultInput, directory: string, attempt: number) {
  const file = path.join(directory, deliveredFileName(input.idempotencyKey));
  const temporary = path.join(directory, `.${deliveredFileName(input.idempotencyKey)}.${randomUUID()}.tmp`);
  try {
    await mkdir(directory, { recursive: true });
    const handle = await open(temporary, 'wx');
    try {
      await handle.writeFile(`${JSON.stringify(input.outcome, null, 2)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // Rename replaces a file left by an earlier attempt of the same run, which holds the same result.
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw ApplicationFailure.retryable(
      `cannot write ${file}: ${code}`,
      DeliveryFailureType.directoryUnwritable,
    );
  }
  return { attempts: attempt, file };
}

export function createDeliverResult(options: DeliverResultOptions = {}) {
  const webhookTimeoutMs = options.webhookTimeoutMs ?? 10_000;
  return async function deliverResult(input: DeliverResultInput): Promise<DeliveryReceipt> {
    const attempt = Context.current().info.attempt;
    if (input.target.kind === 'webhook')
      return postWebhook(input, input.target.url, webhookTimeoutMs, attempt);
    return writeResultFile(input, input.target.path, attempt);
  };
}
