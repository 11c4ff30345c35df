// `switchyard call`: runs one routed call, prints the answer on stdout and the routing record on stderr. Node side.
import { CodecSettingsError } from '../../codec/codec-settings-error';
import type { RoutedCallError } from '../../client/errors';
import type { RoutedCallResult } from '../../routing/routing-record';
import type { Command } from '../command';
import type { CommandIo } from '../command-io';
import { UsageError } from '../cli-errors';
import { temporalUnreachable } from '../temporal-unreachable';
import { ExitCode } from '../exit-codes';
import type { FlagTable } from '../flags';
import { GLOBAL_FLAGS, readGlobalOptions } from '../global-options';
import { EXIT_CODES_NOTE, renderHelp } from '../help-text';
import { booleanFlag, parseCommandArguments, stringFlag } from '../parse-arguments';
import { readRequestContent } from '../read-prompt';
import { renderAnswer, renderReasoningSummary } from '../render-answer';
import { renderRoutingRecord } from '../render-routing-record';
import {
  buildCallInput,
  CALL_FLAGS,
  CONVERSATION_FLAGS,
  readCallFlags,
  readRoutingFlags,
  readConversationFlags,
  readIdempotencyKey,
  readRequestFlags,
  REQUEST_FLAGS,
  ROUTING_FLAGS,
  validateCommandInput,
} from '../request-flags';
import { untilInterrupted } from '../until-interrupted';

/** Temporal's default cap on a workflow id (the server's `limit.maxIDLength`), in bytes. */
const MAX_WORKFLOW_ID_BYTES = 1_000;

const OUTPUT_FLAGS = {
  json: {
    type: 'boolean',
    description: 'print {answer, record} (on failure {error, record}) as JSON on stdout instead of text',
  },
} as const satisfies FlagTable;

const FLAGS = {
  ...REQUEST_FLAGS,
  ...CONVERSATION_FLAGS,
  ...ROUTING_FLAGS,
  ...CALL_FLAGS,
  ...OUTPUT_FLAGS,
  ...GLOBAL_FLAGS,
} satisfies FlagTable;

const HELP = renderHelp({
  usage: [
    'switchyard call [options] <prompt>',
    'switchyard call [options] --file <path>',
    '... | switchyard call [options] [-]',
    'switchyard call [options] --request <path|->',
  ],
  description: [
    'Runs one routed call through a Switchyard worker and waits for the answer. The answer goes to stdout and',
    'the routing record (every attempt, its outcome and cost) to stderr. The prompt is the argument, the',
    'contents of --file, or stdin when the argument is "-" or absent and stdin is not a terminal; --image',
    'attaches pictures to it. --request sends a whole conversation instead (a tool loop turn: the assistant',
    "message with its tool calls, then a tool message with their results). An answer's tool calls print as",
    '"[tool call <name> <id>] <arguments>"; its reasoning as a summary line on stderr (--json has it whole).',
    'Ctrl-C stops waiting (exit 130); the call itself goes on, and "switchyard show <id>" reads it later.',
    'The config (--config, SWITCHYARD_CONFIG, else ./switchyard.config.json if present) is read as for "plan":',
    'a call it refuses (a bad inline route, a missing required budget) exits 2 before anything starts. A route',
    'name the config lacks is looked up among the routes set at runtime once connected (exit 2 if unknown).',
  ],
  sections: [
    { title: 'Request', flags: REQUEST_FLAGS },
    { title: 'Conversation', flags: CONVERSATION_FLAGS },
    { title: 'Routing', flags: ROUTING_FLAGS },
    { title: 'Call', flags: { ...CALL_FLAGS, ...OUTPUT_FLAGS } },
    { title: 'Global', flags: GLOBAL_FLAGS },
  ],
  examples: [
    'switchyard call "Name three prime numbers" --route support',
    'switchyard call --file question.md --max-output-tokens 400 --budget team-docs',
    'git diff | switchyard call --system "Review this diff" --json > review.json',
    'switchyard call "What is on this receipt?" --image receipt.png --stop "END"',
    'switchyard call --request turn-2.json --json > answer.json',
    'switchyard call "Translate: bonjour" --idempotency-key job-42 --deadline-ms 30000',
  ],
  notes: [EXIT_CODES_NOTE],
});

function printResult(result: RoutedCallResult, io: CommandIo): void {
  io.stdout.write(renderAnswer(result.answer));
  const reasoning = renderReasoningSummary(result.answer);
  if (reasoning !== undefined) io.stderr.write(`${reasoning}\n\n`);
  io.stderr.write(renderRoutingRecord(result.record));
}

function printFailure(error: RoutedCallError, json: boolean, io: CommandIo): void {
  if (json) {
    // The typed fields too: a CircuitOpen's retryAt, a BudgetExceeded's numbers, an InvalidRequest's field.
    const failure = { error: error.toJSON(), record: error.record ?? null };
    io.stdout.write(`${JSON.stringify(failure, null, 2)}\n`);
    return;
  }
  io.stderr.write(`switchyard call: the routed call failed (${error.type}): ${error.message}\n`);
  if (error.record) io.stderr.write(`\n${renderRoutingRecord(error.record)}`);
}

export const callCommand: Command = {
  name: 'call',
  help: () => HELP,
  async run(argv, io) {
    const parsed = parseCommandArguments(argv, FLAGS, { allowPositionals: true });
    const globals = readGlobalOptions(parsed);
    const json = booleanFlag(parsed, 'json');
    const idempotencyKey = readIdempotencyKey(parsed);
    // Here rather than at the top: the shared names load the workflow SDK, which `call --help` need not wait for.
    const { routedCallWorkflowId } =
      require('../../workflows/definitions') as typeof import('../../workflows/definitions');
    // The key becomes the workflow id, which Temporal caps (`limit.maxIDLength`): refuse it here, by name,
    // rather than as a bare "Failed to start Workflow" from the server.
    if (
      idempotencyKey !== undefined &&
      Buffer.byteLength(routedCallWorkflowId(idempotencyKey)) > MAX_WORKFLOW_ID_BYTES
    ) {
      throw new UsageError(
        `--idempotency-key is too long: the workflow id it makes (${routedCallWorkflowId('<key>')}) may hold at most ${MAX_WORKFLOW_ID_BYTES} bytes`,
      );
    }
    const requestFlags = { ...readRequestFlags(parsed), ...readConversationFlags(parsed) };
    const callFlags = readCallFlags(parsed);
    const routingFlags = readRoutingFlags(parsed);
    const content = await readRequestContent({
      positionals: parsed.positionals,
      file: stringFlag(parsed, 'file'),
      stdin: io.stdin,
      readStdinWhenAbsent: true,
      images: requestFlags.images,
      ...(requestFlags.requestFile !== undefined ? { requestFile: requestFlags.requestFile } : {}),
      ...(requestFlags.system !== undefined ? { system: requestFlags.system } : {}),
    });
    // Refuse a bad request before connecting, so it exits 2 whether or not Temporal is up; a prompt too large for
    // Temporal (with no payload store) is one.
    // The schemas (zod) load here, not with the module: `call --help` needs none of them.
    const { checkCallAgainstConfig } =
      require('../../client/call-input') as typeof import('../../client/call-input');
    const input = validateCommandInput(
      buildCallInput(requestFlags, content, callFlags, routingFlags),
      content,
      requestFlags,
    );
    try {
      // Loaded here: the size rules bring Temporal's protobuf definitions, which `call --help` need not wait for.
      const { callInputSizeRulesFromEnvironment, checkCallInputSize } =
        require('../../client/call-input-size') as typeof import('../../client/call-input-size');
      checkCallInputSize(input, callInputSizeRulesFromEnvironment());
    } catch (error) {
      if (error instanceof CodecSettingsError) throw new UsageError(error.message);
      throw error;
    }
    // The config is read as for `plan` and `schedule`: one that is named (--config, SWITCHYARD_CONFIG) or
    // present must load (exit 3), and a route it cannot resolve is refused here (exit 2), so such a call never
    // reaches Temporal. Only a client with no config at all leaves the check to the workers.
    const { loadConfigIfPresent } =
      require('../../config/load-config') as typeof import('../../config/load-config');
    const config = loadConfigIfPresent(globals.configFile);
    // A route name the config lacks may have been set at runtime (switchyard routes): the client looks it up among
    // the runtime routes once connected, and refuses it there (exit 2) if it is not one either.
    const runtimeOnly =
      typeof input.route === 'string' && config && !Object.hasOwn(config.routes, input.route);
    if (config && !runtimeOnly) checkCallAgainstConfig(config, input);

    // Loaded after the arguments are checked: the connection brings the native worker runtime (a second or
    // more), which a mistyped flag should not wait for.
    const { connectSwitchyard, isTemporalUnavailable } =
      require('../connect-temporal') as typeof import('../connect-temporal');
    const { RoutedCallError } = require('../../client/errors') as typeof import('../../client/errors');
    const connection = await connectSwitchyard(globals, config);
    try {
      const handle = await connection.switchyard.start(input, idempotencyKey ? { idempotencyKey } : {});
      // Aborting cancels the result's long poll; without it the process would linger after Ctrl-C.
      const abort = new AbortController();
      const outcome = await untilInterrupted(
        connection.temporal.withAbortSignal(abort.signal, () => handle.result()),
      );
      if (outcome.kind === 'interrupted') {
        abort.abort();
        io.stderr.write(
          `switchyard call: interrupted; the call goes on as workflow ${handle.workflowId}\n` +
            `Read it later with: switchyard show ${handle.workflowId}\n`,
        );
        return ExitCode.interrupted;
      }
      if (outcome.kind === 'rejected') {
        if (!(outcome.error instanceof RoutedCallError)) throw outcome.error;
        printFailure(outcome.error, json, io);
        return ExitCode.callFailed;
      }
      if (json) {
        io.stdout.write(
          `${JSON.stringify({ answer: outcome.value.answer, record: outcome.value.record }, null, 2)}\n`,
        );
      } else {
        printResult(outcome.value, io);
      }
      return ExitCode.ok;
    } catch (error) {
      if (isTemporalUnavailable(error)) throw temporalUnreachable(globals, error);
      throw error;
    } finally {
      await connection.close();
    }
  },
};
