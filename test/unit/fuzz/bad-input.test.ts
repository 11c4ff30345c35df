// Property-based fuzz of every input edge: config files, routed calls, schedules and CLI argv. Pure, no server.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import type { CommandIo } from '../../../src/cli/command-io';
import { ExitCode } from '../../../src/cli/exit-codes';
import { main } from '../../../src/cli/main';
import { ConfigError, loadConfig, parseConfig } from '../../../src/config/load-config';
import { anyArgv, badArgvOf, COMMANDS, validArgv } from './cli-argv';
import { checkConfig, configFieldsFor, expectRoutesResolve } from './config-oracle';
import { fuzzCounts, fuzzParameters, fuzzSeed } from './fuzz-settings';
import { applyMutation, mutationOf } from './json-mutations';
import {
  callFieldsFor,
  checkCallInput,
  checkPlannedCall,
  checkScheduleDefinition,
  scheduleFieldsFor,
} from './request-oracle';
import {
  CONFIG_DOMAIN_VALUES,
  REQUEST_DOMAIN_VALUES,
  SCHEDULE_DOMAIN_VALUES,
  VALID_CONFIG,
  VALID_CRON_SCHEDULE,
  VALID_INLINE_CALL,
  VALID_INTERVAL_SCHEDULE,
  VALID_NAMED_CALL,
} from './valid-inputs';

/** Inputs per property: enough to hit every path many times, small enough for the whole file to stay quick. */
const RUNS = { mutation: 500, text: 200, cli: 800 } as const;

// A property that hangs fails here instead of stalling the suite; on an idle machine each takes seconds.
jest.setTimeout(120_000);

const config = parseConfig(VALID_CONFIG);
const scratch = mkdtempSync(path.join(tmpdir(), 'switchyard-fuzz-'));

beforeAll(() => console.log(`fuzz seed ${fuzzSeed()} (set SWITCHYARD_FUZZ_SEED to replay another)`));
afterAll(() => {
  const { config: configs, request, cli } = fuzzCounts;
  console.log(
    `[reliability] fuzz: ${configs + request + cli} inputs (config ${configs}, request ${request}, cli ${cli}), 0 crashes`,
  );
});

describe('config', () => {
  test('the valid base config parses and resolves', () => {
    expectRoutesResolve(config);
  });

  test('a mutated config parses or throws a ConfigError naming the mutated field', () => {
    fc.assert(
      fc.property(mutationOf(VALID_CONFIG, CONFIG_DOMAIN_VALUES), (mutation) => {
        fuzzCounts.config += 1;
        checkConfig(applyMutation(VALID_CONFIG, mutation), configFieldsFor(VALID_CONFIG, mutation));
      }),
      fuzzParameters(RUNS.mutation),
    );
  });

  test('random JSON documents and random bytes in the config file give a ConfigError', () => {
    const file = path.join(scratch, 'switchyard.config.json');
    const contents = fc.oneof(
      fc.json({ maxDepth: 4 }),
      fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify({ providers: value, routes: value })),
      fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
      fc.string({ unit: 'binary', maxLength: 200 }),
    );
    fc.assert(
      fc.property(contents, (content) => {
        fuzzCounts.config += 1;
        writeFileSync(file, content);
        try {
          expectRoutesResolve(loadConfig(file));
        } catch (error) {
          if (!(error instanceof ConfigError)) throw error;
          expect(error.file).toBe(file);
        }
      }),
      fuzzParameters(RUNS.text),
    );
  });
});

describe('routed call', () => {
  test.each([
    ['an inline route', VALID_INLINE_CALL],
    ['a named route', VALID_NAMED_CALL],
  ])('a mutated call with %s is validated or refused naming the field', (_label, base) => {
    checkCallInput(base, []);
    fc.assert(
      fc.property(mutationOf(base, REQUEST_DOMAIN_VALUES), (mutation) => {
        fuzzCounts.request += 1;
        const value = applyMutation(base, mutation);
        const fields = callFieldsFor(mutation);
        checkCallInput(value, fields);
        checkPlannedCall(config, value, fields);
      }),
      fuzzParameters(RUNS.mutation),
    );
  });
});

describe('schedule definition', () => {
  test.each([
    ['a cron schedule', VALID_CRON_SCHEDULE],
    ['an interval schedule', VALID_INTERVAL_SCHEDULE],
  ])('a mutated %s is accepted or refused naming the field', (_label, base) => {
    checkScheduleDefinition(config, base, []);
    fc.assert(
      fc.property(mutationOf(base, SCHEDULE_DOMAIN_VALUES), (mutation) => {
        fuzzCounts.request += 1;
        checkScheduleDefinition(config, applyMutation(base, mutation), scheduleFieldsFor(mutation));
      }),
      fuzzParameters(RUNS.mutation),
    );
  });
});

describe('CLI arguments', () => {
  /** What a command line that passed every check reaches instead of Temporal: a recorder that refuses. */
  const CONNECTION_REFUSED = 'fuzz: the command tried to connect';
  const connections: string[] = [];
  const environment = { ...process.env };

  beforeAll(() => {
    process.env.SWITCHYARD_CONFIG = path.join(scratch, 'cli.config.json');
    writeFileSync(process.env.SWITCHYARD_CONFIG, JSON.stringify(VALID_CONFIG));
    delete process.env.TEMPORAL_ADDRESS;
    // The exports objects the commands read at run time (`require`), so every path to Temporal is covered.
    const connectTemporal =
      require('../../../src/cli/connect-temporal') as typeof import('../../../src/cli/connect-temporal');
    jest.spyOn(connectTemporal, 'connectSwitchyard').mockImplementation(async () => {
      connections.push('connectSwitchyard');
      throw new Error(CONNECTION_REFUSED);
    });
    const worker = require('../../../src/worker') as typeof import('../../../src/worker');
    jest.spyOn(worker, 'runWorker').mockImplementation(async () => {
      connections.push('runWorker');
      throw new Error(CONNECTION_REFUSED);
    });
  });
  afterAll(() => {
    jest.restoreAllMocks();
    process.env = environment;
  });

  async function runCli(argv: readonly string[]) {
    let out = '';
    let err = '';
    const io: CommandIo = {
      stdout: { write: (text: string) => (out += text) },
      stderr: { write: (text: string) => (err += text) },
      stdin: Object.assign(Readable.from([Buffer.from('A prompt on stdin.')]), { isTTY: false }),
    };
    const before = connections.length;
    const code = await main(argv, io);
    return { code, out, err, connected: connections.length > before };
  }

  test.each(Object.entries(COMMANDS))(
    'the valid %s command line passes every check',
    async (_name, model) => {
      const { code, err, connected } = await runCli(validArgv(model));
      if (model.words[0] === 'plan') {
        expect(err).toBe('');
        expect(code).toBe(ExitCode.ok);
      } else {
        expect(err).toContain(CONNECTION_REFUSED);
        expect(connected).toBe(true);
      }
    },
  );

  test.each(Object.entries(COMMANDS))(
    '%s with one mistake exits 2 naming the flag, and never connects',
    async (_name, model) => {
      await fc.assert(
        fc.asyncProperty(badArgvOf(model), async (bad) => {
          fuzzCounts.cli += 1;
          const { code, out, err, connected } = await runCli(bad.argv);
          if (connected || code !== ExitCode.usage || !err.includes(bad.named)) {
            throw new Error(
              `${bad.mistake}: ${JSON.stringify(bad.argv)} exited ${code}${connected ? ' after connecting' : ''}, ` +
                `expected 2 naming ${JSON.stringify(bad.named)}; stderr: ${err}`,
            );
          }
          expect(out).toBe('');
        }),
        fuzzParameters(Math.ceil(RUNS.cli / 4)),
      );
    },
  );

  test('any argv ends in help, a usage or config error without connecting, or reaches the connection', async () => {
    const outcomes: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(anyArgv, async (argv) => {
        fuzzCounts.cli += 1;
        const { code, err, connected } = await runCli(argv);
        const outcome = connected ? 'connected' : String(code);
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
        if (connected) {
          expect(code).toBe(ExitCode.callFailed);
          expect(err).toContain(CONNECTION_REFUSED);
          return;
        }
        // Exit 1 without a connection attempt would be an error the CLI did not expect: a crash.
        expect([ExitCode.ok, ExitCode.usage, ExitCode.config]).toContain(code);
        if (code !== ExitCode.ok) expect(err).toMatch(/^(switchyard|Usage: switchyard)/);
      }),
      fuzzParameters(RUNS.cli),
    );
    // Shows the property is not vacuous: random command lines reach every outcome, the connection included.
    console.log(`fuzz any-argv outcomes by exit code: ${JSON.stringify(outcomes)}`);
  });
});
