// `switchyard plan`: what a call would do now (attempt order, timeouts, cost bounds), from the config (and the runtime routes, when asked). Node side.
import type { Config } from '../../config/config';
import type { RoutedCallInput } from '../../config/routed-call-input';
import type { CallPlan } from '../../routing/call-plan';
import type { Command } from '../command';
import { ExitCode } from '../exit-codes';
import type { FlagTable } from '../flags';
import { GLOBAL_FLAGS, readGlobalOptions, type GlobalOptions } from '../global-options';
import { EXIT_CODES_NOTE, renderHelp } from '../help-text';
import { booleanFlag, parseCommandArguments, stringFlag } from '../parse-arguments';
import { readRequestContent } from '../read-prompt';
import { renderCallPlan } from '../render-call-plan';
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

/** Stands in when no prompt is given: the plan's input-token estimate then covers a short question. */
export const PLACEHOLDER_PROMPT = 'A short question for the model.';

const RUNTIME_FLAGS = {
  'runtime-routes': {
    type: 'boolean',
    description:
      "plan with the routes changed at runtime (switchyard routes) overlaid on the config's; connects to Temporal and needs a running worker",
  },
} as const satisfies FlagTable;

const OUTPUT_FLAGS = {
  json: { type: 'boolean', description: 'print the plan as JSON on stdout instead of a table' },
} as const satisfies FlagTable;

// The call flags are accepted too, so a `call` command line becomes a dry run by changing only the verb.
const FLAGS = {
  ...REQUEST_FLAGS,
  ...CONVERSATION_FLAGS,
  ...ROUTING_FLAGS,
  ...CALL_FLAGS,
  ...RUNTIME_FLAGS,
  ...OUTPUT_FLAGS,
  ...GLOBAL_FLAGS,
} satisfies FlagTable;

const HELP = renderHelp({
  usage: ['switchyard plan [options] [prompt | -]', 'switchyard plan [options] --request <path|->'],
  description: [
    "Shows what a routed call would do now: which targets it would try in which order and why (the route's",
    "strategy or --prefer; targets --require rejects, with the reason), each attempt's",
    'timeout and worst-case cost (the amount reserved on the budget before the attempt). Reads only the',
    'config file; calls no provider and needs no Temporal server. With --runtime-routes it reads the routes',
    'changed at runtime too (a route set at runtime is planned with its spec, a deleted one is unknown), which',
    'needs the Temporal server and a running worker. The prompt only sizes the input-token',
    'estimate: give it as the argument, with --file, or as "-" for stdin; without one a short placeholder is used.',
    'Images (--image) and a whole request (--request: its images, documents and tools) size it too, and pass',
    'over the targets that cannot take them.',
    'The call flags (--idempotency-key, --stream, --patience) are checked and ignored, so any call line can be',
    'planned.',
  ],
  sections: [
    { title: 'Request', flags: REQUEST_FLAGS },
    { title: 'Conversation', flags: CONVERSATION_FLAGS },
    { title: 'Routing', flags: ROUTING_FLAGS },
    { title: 'Runtime routes', flags: RUNTIME_FLAGS },
    { title: 'Output', flags: OUTPUT_FLAGS },
    { title: 'Global', flags: GLOBAL_FLAGS },
  ],
  examples: [
    'switchyard plan --route support',
    'switchyard plan --file long-report.md --max-output-tokens 4000 --json',
    'switchyard plan --request conversation.json --route support',
    'switchyard plan --runtime-routes --route canary',
    'switchyard plan --route support --prefer cost --require \'{"capabilities":["tools"]}\'',
    'switchyard plan --config ./staging.config.json --route \'{"targets":[{"provider":"openai","model":"gpt-4o-mini"}]}\'',
  ],
  notes: [EXIT_CODES_NOTE],
});

export const planCommand: Command = {
  name: 'plan',
  help: () => HELP,
  async run(argv, io) {
    const parsed = parseCommandArguments(argv, FLAGS, { allowPositionals: true });
    const globals = readGlobalOptions(parsed);
    readIdempotencyKey(parsed);
    readCallFlags(parsed);
    const routingFlags = readRoutingFlags(parsed);
    const requestFlags = { ...readRequestFlags(parsed), ...readConversationFlags(parsed) };
    const content = await readRequestContent({
      positionals: parsed.positionals,
      file: stringFlag(parsed, 'file'),
      stdin: io.stdin,
      readStdinWhenAbsent: false,
      fallback: PLACEHOLDER_PROMPT,
      images: requestFlags.images,
      ...(requestFlags.requestFile !== undefined ? { requestFile: requestFlags.requestFile } : {}),
      ...(requestFlags.system !== undefined ? { system: requestFlags.system } : {}),
    });
    // A bad request is reported as such (exit 2) even when the config is also missing.
    // The schemas (zod) load here, not with the module: `plan --help` needs none of them.
    const { loadConfig } = require('../../config/load-config') as typeof import('../../config/load-config');
    const input = validateCommandInput(
      buildCallInput(requestFlags, content, {}, routingFlags),
      content,
      requestFlags,
    );
    const config = loadConfig(globals.configFile);
    const plan = booleanFlag(parsed, 'runtime-routes')
      ? await planWithRuntimeRoutes(globals, config, input)
      : planFromConfig(config, input);
    io.stdout.write(
      booleanFlag(parsed, 'json') ? `${JSON.stringify(plan, null, 2)}\n` : renderCallPlan(plan),
    );
    return ExitCode.ok;
  },
};

/** The plan from the config file alone; a route it lacks is refused with a hint at `--runtime-routes`. */
function planFromConfig(config: Config, input: RoutedCallInput): CallPlan {
  const { planRoutedCall } = require('../../client/call-input') as typeof import('../../client/call-input');
  const { InvalidRequestError } =
    require('../../client/invalid-request-error') as typeof import('../../client/invalid-request-error');
  try {
    return planRoutedCall(config, input);
  } catch (error) {
    const unknownRoute =
      error instanceof InvalidRequestError &&
      error.field === 'route' &&
      typeof input.route === 'string' &&
      !Object.hasOwn(config.routes, input.route);
    if (!unknownRoute) throw error;
    throw new InvalidRequestError(
      `${error.message}; a route set at runtime is planned with --runtime-routes`,
      error.field,
    );
  }
}

/**
 * The plan against the config with the routes changed at runtime overlaid, read through the client's routes API
 * as workers resolve calls: a runtime route is planned with its spec, a route deleted at runtime is unknown.
 */
async function planWithRuntimeRoutes(
  globals: GlobalOptions,
  config: Config,
  input: RoutedCallInput,
): Promise<CallPlan> {
  const { planRoutedCall } = require('../../client/call-input') as typeof import('../../client/call-input');
  const { configWithRuntimeRoutes } =
    require('../../config/runtime-routes') as typeof import('../../config/runtime-routes');
  // Loaded only here: a plan from the config alone never needs the Temporal client.
  const { connectSwitchyard } = require('../connect-temporal') as typeof import('../connect-temporal');
  const connection = await connectSwitchyard(globals, config);
  try {
    const runtime = await connection.switchyard.routes.runtimeRoutes();
    return planRoutedCall(configWithRuntimeRoutes(config, runtime), input);
  } finally {
    await connection.close();
  }
}
