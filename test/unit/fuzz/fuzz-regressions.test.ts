// Plain examples of the bugs the bad-input fuzz found, kept so each stays fixed. Pure, no server.
import { createProviderRegistry, UnknownProviderError } from '../../../src/activities/provider-registry';
import { routedCallStaticDetails } from '../../../src/client/call-details';
import { InvalidRequestError } from '../../../src/client/errors';
import { validateCallInput } from '../../../src/client/switchyard-client';
import type { CommandIo } from '../../../src/cli/command-io';
import { ExitCode } from '../../../src/cli/exit-codes';
import { main } from '../../../src/cli/main';
import { ConfigError, parseConfig } from '../../../src/config/load-config';
import { resolveRoute, RouteResolutionError } from '../../../src/config/resolve-route';
import type { RoutedCallInputValue } from '../../../src/config/routed-call-input';
import { VALID_CONFIG } from './valid-inputs';

const config = parseConfig(VALID_CONFIG);

function configWith(
  mutate: (
    document: { routes: { support: { targets: Record<string, unknown>[] } } } & Record<string, unknown>,
  ) => void,
) {
  const document = structuredClone(VALID_CONFIG) as unknown as Parameters<typeof mutate>[0];
  mutate(document);
  return document;
}

function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

test.each(['constructor', '__proto__', 'toString'])(
  'a route target naming provider "%s" is a ConfigError at that field, not a TypeError',
  (name) => {
    const error = refusal(() =>
      parseConfig(configWith((document) => (document.routes.support.targets[1]!.provider = name))),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(`unknown provider "${name}"`);
    expect((error as ConfigError).message).toContain('→ at routes.support.targets[1].provider');
  },
);

test('a model or default route named after an Object.prototype member is unknown, not found', () => {
  const model = refusal(() =>
    parseConfig(configWith((document) => (document.routes.support.targets[0]!.model = 'constructor'))),
  );
  expect((model as ConfigError).message).toContain('has no model "constructor"');
  const route = refusal(() => parseConfig(configWith((document) => (document.defaultRoute = 'toString'))));
  expect((route as ConfigError).message).toContain('no route named "toString"');
});

test.each([
  ['route name', 'constructor', 'route'],
  [
    'inline provider',
    { targets: [{ provider: '__proto__', model: 'gpt-4o-mini' }] },
    'route.targets.0.provider',
  ],
  ['inline model', { targets: [{ provider: 'openai', model: 'constructor' }] }, 'route.targets.0.model'],
])(
  'resolving a %s named after an Object.prototype member is a RouteResolutionError',
  (_label, route, field) => {
    const error = refusal(() => resolveRoute(config, route as never));
    expect(error).toBeInstanceOf(RouteResolutionError);
    expect((error as RouteResolutionError).field).toBe(field);
  },
);

test('static details of a call on a route named after an Object.prototype member leave the targets to the worker', () => {
  const details = routedCallStaticDetails(
    validateCallInput({ route: 'constructor', request: { messages: [{ role: 'user', content: 'hi' }] } }),
    config,
  );
  expect(details).toContain('targets: resolved by the worker');
});

test('the provider registry does not find a provider named after an Object.prototype member', () => {
  const registry = createProviderRegistry(config, {});
  for (const name of ['constructor', 'toString', '__proto__']) {
    expect(() => registry.get(name)).toThrow(UnknownProviderError);
  }
});

test('an inline route with one bad field is refused at that field, not as "Invalid input" at route', () => {
  const input = {
    route: { targets: [{ provider: -1, model: 'gpt-4o-mini' }] },
    request: { messages: [{ role: 'user', content: 'hi' }] },
  } as unknown as RoutedCallInputValue;
  const error = refusal(() => validateCallInput(input));
  expect(error).toBeInstanceOf(InvalidRequestError);
  expect((error as InvalidRequestError).field).toBe('route.targets.0.provider');
  const notARoute = refusal(() => validateCallInput({ ...input, route: 5 as never }));
  expect((notARoute as Error).message).toContain(
    "a route is a configured route's name or an inline route object",
  );
});

describe('CLI', () => {
  const connectTemporal =
    require('../../../src/cli/connect-temporal') as typeof import('../../../src/cli/connect-temporal');
  let connect: jest.SpyInstance;
  beforeEach(() => {
    connect = jest
      .spyOn(connectTemporal, 'connectSwitchyard')
      .mockRejectedValue(new Error('must not connect'));
  });
  afterEach(() => connect.mockRestore());

  async function run(argv: readonly string[]) {
    let err = '';
    const io: CommandIo = {
      stdout: { write: () => true },
      stderr: { write: (text: string) => (err += text) },
      stdin: {
        isTTY: true,
        [Symbol.asyncIterator]: () => {
          throw new Error('stdin must not be read');
        },
      },
    };
    return { code: await main(argv, io), err };
  }

  test.each([
    [['constructor'], 'unknown command "constructor"'],
    [['__proto__'], 'unknown command "__proto__"'],
    [['help', 'toString'], 'no help for "toString"'],
    [['schedule', 'constructor', 'x'], 'unknown action "constructor"'],
    [['call', '--a b', 'hi'], 'unknown option --a b'],
    [['call', "--it's", 'hi'], "unknown option --it's"],
    [['call', "--a '. b", 'hi'], "unknown option --a '. b"],
    [['worker', "it's"], 'unexpected argument "it\'s"'],
  ])('%j exits 2: %s', async (argv, message) => {
    const { code, err } = await run(argv);
    expect(err).toContain(message);
    expect(code).toBe(ExitCode.usage);
  });

  test.each([
    [
      ['schedule', 'create', 'x', '--cron', '61 * * * *', '--prompt', 'hi'],
      'invalid request at cron (--cron)',
    ],
    [['schedule', 'create', 'x', '--every', '500ms', '--prompt', 'hi'], 'invalid request at every (--every)'],
    [
      ['schedule', 'create', 'x', '--every', '1h', '--prompt', 'hi', '--timezone', 'Mars/Olympus'],
      '(--timezone)',
    ],
    [['schedule', 'create', 'x', '--every', '1h', '--prompt', 'hi', '--temperature', '9'], '(--temperature)'],
    [
      ['schedule', 'create', 'x', '--every', '1h', '--prompt', 'hi', '--catchup-window', '5s'],
      '(--catchup-window)',
    ],
    [
      ['schedule', 'create', 'bad id!', '--every', '1h', '--prompt', 'hi'],
      'invalid request at id (the schedule <id>)',
    ],
    [['ledger', 'team', '--limit-usd', '9000001'], '--limit-usd must be at most 9000000'],
    [['schedule', 'update', 'x', '--cron', '61 * * * *'], 'invalid request at cron (--cron)'],
    [['schedule', 'update', 'x', '--timezone', 'Mars/Olympus'], 'invalid request at timezone (--timezone)'],
    [
      ['schedule', 'update', 'x', '--temperature', '9'],
      'invalid request at call.request.temperature (--temperature)',
    ],
    [['call', 'hi', '--idempotency-key', 'k'.repeat(985)], '--idempotency-key is too long'],
    [['call', 'hi', '--idempotency-key', 'é'.repeat(493)], '--idempotency-key is too long'],
    [['ledger', 'x'.repeat(201)], 'the budget <scope> is 1-200 characters'],
  ])('%j is refused before connecting: %s', async (argv, message) => {
    const { code, err } = await run(argv);
    expect(err).toContain(message);
    expect(code).toBe(ExitCode.usage);
    expect(connect).not.toHaveBeenCalled();
  });
});
