// CLI start-up: `switchyard` (compiled) from spawn to exit for the commands that run no worker. Bench side.
// npx tsx bench/cli-startup.ts [--runs 20] [--json bench/results/cli-startup.tmp.json] [--cli-root <checkout>]
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { parseConfig, SwitchyardClient } from 'switchyard';
import { startDevServer, startFakeProvider } from 'switchyard/testing';
import { createProviderRegistry, createSwitchyardWorker } from 'switchyard/worker';
import { summarize, type Summary } from './stats';

const ROOT = path.resolve(__dirname, '..');
const CPU_REPORT = path.join(__dirname, 'cli-cpu-report.cjs');
const ROUTE = 'cli-bench';
const SCOPE = 'cli-bench';
const KEY_VARIABLE = 'CLI_BENCH_FAKE_KEY';

export interface CliStartupOptions {
  /** Timed runs of each command, after {@link warmupRuns}. @default 20 */
  readonly runs?: number;
  /** Untimed runs first (disk cache, the server's first queries). @default 2 */
  readonly warmupRuns?: number;
  /**
   * Checkout whose `bin/switchyard.js` (and dist/) is timed, e.g. an older one to compare with; it is built when
   * its dist/ is missing or older than its src/. @default this checkout
   */
  readonly cliRoot?: string;
}

export interface CliCommandTiming {
  /** The command line after `switchyard` (or after `node`, for the floors). */
  readonly command: string;
  /** Spawn to exit, in milliseconds. */
  readonly wallMs: Summary;
  /** CPU time (user + system) of the process itself, in milliseconds: less swayed by a busy machine. */
  readonly cpuMs: Summary;
}

export interface CliStartupResults {
  /** The `bin/switchyard.js` timed. */
  readonly cli: string;
  readonly node: string;
  /** `node -e 0`: what any Node program pays before its first line. */
  readonly nodeFloor: CliCommandTiming;
  /** `node -e "require('@temporalio/client')"`: what any program that talks to Temporal pays first. */
  readonly temporalClientFloor: CliCommandTiming;
  readonly commands: readonly CliCommandTiming[];
  /** Commands that did not run (an older CLI may refuse what the worker does now), with the first line it printed. */
  readonly failed: readonly { readonly command: string; readonly error: string }[];
  /** The same routed call through `SwitchyardClient.generate` on an open connection: the call's own time. */
  readonly apiCallMs: Summary;
  /** `call` p50 minus the API's p50: what the CLI adds around the call (start-up, connecting and exiting). */
  readonly callOverheadP50Ms: number;
}

function log(text: string): void {
  process.stderr.write(`[cli-startup] ${text}\n`);
}

/** Newest modification time under `directory`, for the `.ts` files in it. */
export function newestSource(directory: string): number {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

/** The CLI is measured compiled, as installed: builds it when dist/ is missing or older than src/. */
function ensureCompiledCli(cliRoot: string): void {
  let builtAt = 0;
  try {
    builtAt = statSync(path.join(cliRoot, 'dist/src/cli/main.js')).mtimeMs;
  } catch {
    builtAt = 0;
  }
  if (builtAt >= newestSource(path.join(cliRoot, 'src'))) return;
  log(`${cliRoot}: dist/ is missing or older than src/: npm run build`);
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: cliRoot, stdio: 'inherit' });
}

interface ProcessTiming {
  readonly wallMs: number;
  readonly cpuMs: number;
}

/** Runs `node <args>` to its exit: its wall time and the CPU time it reports (cli-cpu-report.cjs). */
function timeProcess(args: readonly string[], env: NodeJS.ProcessEnv): Promise<ProcessTiming> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', CPU_REPORT, ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let report = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => (report += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited with ${code}:\n${stderr}`));
      else resolve({ wallMs, cpuMs: (JSON.parse(report) as { cpuMs: number }).cpuMs });
    });
  });
}

async function sample(
  command: string,
  runs: number,
  warmupRuns: number,
  once: () => Promise<ProcessTiming>,
): Promise<CliCommandTiming> {
  for (let index = 0; index < warmupRuns; index += 1) await once();
  const timings: ProcessTiming[] = [];
  for (let index = 0; index < runs; index += 1) timings.push(await once());
  return {
    command,
    wallMs: summarize(timings.map((timing) => timing.wallMs)),
    cpuMs: summarize(timings.map((timing) => timing.cpuMs)),
  };
}

export async function measureCliStartup(options: CliStartupOptions = {}): Promise<CliStartupResults> {
  const runs = options.runs ?? 20;
  const warmupRuns = options.warmupRuns ?? 2;
  const cliRoot = path.resolve(options.cliRoot ?? ROOT);
  const bin = path.join(cliRoot, 'bin/switchyard.js');
  ensureCompiledCli(cliRoot);
  const directory = mkdtempSync(path.join(tmpdir(), 'switchyard-cli-bench-'));
  const stack: (() => Promise<unknown>)[] = [
    () => Promise.resolve(rmSync(directory, { recursive: true, force: true })),
  ];
  try {
    log('starting a dev server, the fake provider (0 ms) and a Switchyard worker');
    const [server, fake] = await Promise.all([startDevServer({ headless: true }), startFakeProvider()]);
    stack.push(
      () => server.stop(),
      () => fake.close(),
    );
    const configInput = {
      providers: {
        fake: {
          kind: 'openai',
          apiKeyEnv: KEY_VARIABLE,
          baseURL: fake.openaiBaseURL,
          models: { 'bench-model': { inputUsdPerMillion: 0.15, outputUsdPerMillion: 0.6 } },
        },
      },
      routes: { [ROUTE]: { targets: [{ provider: 'fake', model: 'bench-model', timeoutMs: 10_000 }] } },
      defaultRoute: ROUTE,
    };
    const configFile = path.join(directory, 'switchyard.config.json');
    writeFileSync(configFile, JSON.stringify(configInput, null, 2));
    const config = parseConfig(configInput);
    const taskQueue = `cli-bench-${process.pid}`;
    const nativeConnection = await NativeConnection.connect({ address: server.address });
    stack.push(() => nativeConnection.close());
    const worker = await createSwitchyardWorker({
      config,
      connection: nativeConnection,
      taskQueue,
      providers: createProviderRegistry(config, { [KEY_VARIABLE]: 'sk-cli-bench' }),
    });
    const running = worker.run();
    stack.push(async () => {
      worker.shutdown();
      await running;
    });
    const connection = await Connection.connect({ address: server.address });
    stack.push(() => connection.close());
    const switchyard = new SwitchyardClient({ client: new Client({ connection }), taskQueue, config });
    const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };
    const { record } = await switchyard.generate({ route: ROUTE, request, budget: SCOPE });

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_ADDRESS: server.address,
      SWITCHYARD_TASK_QUEUE: taskQueue,
      SWITCHYARD_CONFIG: configFile,
    };
    delete env.SWITCHYARD_CODEC_KEY;
    const commandLines = [
      ['--help'],
      ['call', '--help'],
      ['plan', '--route', ROUTE, 'Say hello'],
      ['call', 'Say hello', '--route', ROUTE, '--max-output-tokens', '64'],
      ['show', record.workflowId],
      ['breakers'],
      ['ledger', SCOPE],
    ];
    log(
      `node floor, ${commandLines.length} commands and the API call, ${runs} runs each after ${warmupRuns} warm-ups`,
    );
    const nodeFloor = await sample('-e 0', runs, warmupRuns, () => timeProcess(['-e', '0'], env));
    const clientScript = "require('@temporalio/client')";
    const temporalClientFloor = await sample(`-e "${clientScript}"`, runs, warmupRuns, () =>
      timeProcess(['-e', clientScript], env),
    );
    const commands: CliCommandTiming[] = [];
    const failed: { command: string; error: string }[] = [];
    for (const commandLine of commandLines) {
      const command = commandLine.join(' ');
      try {
        const timing = await sample(command, runs, warmupRuns, () => timeProcess([bin, ...commandLine], env));
        commands.push(timing);
        log(`${timing.command}: p50 ${timing.wallMs.p50} ms wall, ${timing.cpuMs.p50} ms CPU`);
      } catch (error) {
        const firstLine = (error instanceof Error ? error.message : String(error)).split('\n')[1] ?? '';
        failed.push({ command, error: firstLine });
        log(`${command}: failed (${firstLine})`);
      }
    }
    const apiSamples: number[] = [];
    for (let index = 0; index < warmupRuns + runs; index += 1) {
      const started = process.hrtime.bigint();
      await switchyard.generate({ route: ROUTE, request });
      if (index >= warmupRuns) apiSamples.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    const apiCallMs = summarize(apiSamples);
    const call = commands.find((timing) => timing.command.startsWith('call Say'));
    return {
      cli: path.relative(ROOT, bin) || bin,
      node: process.version,
      nodeFloor,
      temporalClientFloor,
      commands,
      apiCallMs,
      failed,
      callOverheadP50Ms: call ? Math.round((call.wallMs.p50 - apiCallMs.p50) * 10) / 10 : Number.NaN,
    };
  } finally {
    for (const step of stack.reverse()) await step().catch(() => undefined);
  }
}

function renderTable(results: CliStartupResults): string {
  const cell = (value: number | string) => String(value).padStart(8);
  const row = (label: string, timing: CliCommandTiming) =>
    `| ${label.padEnd(52)} | ${cell(timing.wallMs.p50)} | ${cell(timing.wallMs.p90)} | ${cell(timing.cpuMs.p50)} |`;
  return [
    `| ${'command (compiled CLI), ms'.padEnd(52)} | wall p50 | wall p90 |  CPU p50 |`,
    `| ${'-'.repeat(52)} | -------: | -------: | -------: |`,
    row(`node ${results.nodeFloor.command} (the floor)`, results.nodeFloor),
    row(`node ${results.temporalClientFloor.command}`, results.temporalClientFloor),
    ...results.commands.map((timing) => row(`switchyard ${timing.command}`.slice(0, 52), timing)),
    ...results.failed.map(
      ({ command }) => `| ${`switchyard ${command}`.slice(0, 52).padEnd(52)} | failed (see the log) |`,
    ),
    `| ${'SwitchyardClient.generate, same call, in process'.padEnd(52)} | ${cell(results.apiCallMs.p50)} | ${cell(results.apiCallMs.p90)} | ${cell('')} |`,
    '',
    `call p50 − API p50 = ${results.callOverheadP50Ms} ms (start-up, connecting and exiting)`,
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { runs: { type: 'string' }, json: { type: 'string' }, 'cli-root': { type: 'string' } },
  });
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const results = await measureCliStartup({
    ...(values.runs ? { runs: Number(values.runs) } : {}),
    ...(values['cli-root'] ? { cliRoot: values['cli-root'] } : {}),
  });
  process.stdout.write(`${renderTable(results)}\n`);
  if (values.json) writeFileSync(values.json, `${JSON.stringify(results, null, 2)}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
