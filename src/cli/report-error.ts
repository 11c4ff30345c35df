// Turns whatever a command threw into one message on stderr and the matching exit code. Node side.
import { existsSync } from 'node:fs';
import { TemporalUnreachableError, UsageError } from './cli-errors';
import type { CommandIo } from './command-io';
import { ExitCode } from './exit-codes';
import { flagForField } from './request-flags';

/** Writes the error for a person and returns the exit code a script can branch on. */
export function reportError(error: unknown, command: string | undefined, io: CommandIo): ExitCode {
  const prefix = command ? `switchyard ${command}` : 'switchyard';
  const write = (text: string) => io.stderr.write(`${prefix}: ${text}\n`);

  if (error instanceof UsageError) {
    write(`${error.message}\nRun "${prefix} --help" for usage.`);
    return ExitCode.usage;
  }
  if (error instanceof TemporalUnreachableError) {
    write(
      `${error.message}\nStart one with "temporal server start-dev", or point --address / TEMPORAL_ADDRESS at one.`,
    );
    return ExitCode.temporalUnreachable;
  }

  // Loaded only now, and the Temporal client's error classes last (they bring the whole client, hundreds of
  // milliseconds): `--help`, a mistyped flag, a bad request or config should not wait for them.
  const { InvalidRequestError } =
    require('../client/invalid-request-error') as typeof import('../client/invalid-request-error');
  if (error instanceof InvalidRequestError) {
    const flag = flagForField(error.field);
    const where = error.field ? ` at ${error.field}${flag ? ` (${flag})` : ''}` : '';
    // zod's multi-line report reads better starting on a line of its own.
    write(`invalid request${where}:${error.message.includes('\n') ? '\n' : ' '}${error.message}`);
    return ExitCode.usage;
  }
  const { ConfigError } = require('../config/load-config') as typeof import('../config/load-config');
  if (error instanceof ConfigError) {
    const missing = error.file !== undefined && !existsSync(error.file);
    write(missing ? `${error.message}\nPass --config <path> or set SWITCHYARD_CONFIG.` : error.message);
    return ExitCode.config;
  }
  const { PayloadTooLargeError } =
    require('../codec/payload-limits') as typeof import('../codec/payload-limits');
  if (error instanceof PayloadTooLargeError) {
    // Refused before anything was sent: a request that cannot be sent is a usage error, like a schema refusal.
    write(`request too large: ${error.message}`);
    return ExitCode.usage;
  }
  const { NamespaceNotFoundError, WorkflowNotFoundError } =
    require('@temporalio/common') as typeof import('@temporalio/common');
  if (error instanceof NamespaceNotFoundError) {
    write(`namespace "${error.namespace}" does not exist (set by --namespace or TEMPORAL_NAMESPACE)`);
    return ExitCode.usage;
  }
  if (error instanceof WorkflowNotFoundError) {
    write(`no workflow with id "${error.workflowId}" in this namespace`);
    return ExitCode.usage;
  }
  const { IdempotencyConflictError, RoutedCallError } =
    require('../client/errors') as typeof import('../client/errors');
  if (error instanceof IdempotencyConflictError) {
    // A refused request like any other: nothing started, and the existing call is left as it is.
    write(`${error.message} (--idempotency-key)`);
    return ExitCode.usage;
  }
  if (error instanceof RoutedCallError) {
    write(`the routed call failed (${error.type}): ${error.message}`);
    return ExitCode.callFailed;
  }
  write(error instanceof Error ? error.message : String(error));
  return ExitCode.callFailed;
}
