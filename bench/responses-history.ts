// What Responses state costs in Temporal history: a previous_response_id chain through the gateway, each turn's
// workflow history size and the chain's total. Run alone: `npx tsx bench/responses-history.ts [--turns n]`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import OpenAI from 'openai';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { KeyStore, startGateway, SwitchyardClient } from 'switchyard';
import { startDevServer, startFakeProvider } from 'switchyard/testing';
import { createProviderRegistry, createSwitchyardWorker } from 'switchyard/worker';
import { BENCH_KEYS, benchConfig, MODE_ROUTE } from './bench-config';

export interface ChainTurn {
  readonly turn: number;
  /** Characters of the turn's own input. */
  readonly inputChars: number;
  /** Characters of the answer (the fake echoes the turn's input). */
  readonly answerChars: number;
  /** The turn's workflow history, as Temporal counts it: events and bytes. */
  readonly historyEvents: number;
  readonly historyBytes: number;
  /** The chain's histories so far, in bytes. */
  readonly totalBytes: number;
}

/** A user turn of about `chars` characters: words, so the fake's echo streams and counts like text. */
function turnText(turn: number, chars: number): string {
  const words = `turn ${turn}: `;
  return (words + 'lorem ipsum dolor sit amet '.repeat(Math.ceil(chars / 27))).slice(0, chars);
}

/**
 * Runs a chain of `turns` turns on `route`, each continuing the last by `previous_response_id`, and reads each
 * turn's history size once its call has closed.
 */
export async function measureChain(
  switchyard: SwitchyardClient,
  gatewayUrl: string,
  key: string,
  options: { readonly route: string; readonly turns: number; readonly turnChars: number },
): Promise<ChainTurn[]> {
  const openai = new OpenAI({ apiKey: key, baseURL: `${gatewayUrl}/v1`, maxRetries: 0 });
  const rows: ChainTurn[] = [];
  let previous: string | undefined;
  let totalBytes = 0;
  for (let turn = 1; turn <= options.turns; turn += 1) {
    const input = turnText(turn, options.turnChars);
    const { data, response } = await openai.responses
      .create({
        model: options.route,
        input,
        // Room for the whole echo: the answer is as long as the turn.
        max_output_tokens: Math.ceil(options.turnChars / 2),
        ...(previous !== undefined ? { previous_response_id: previous } : {}),
      })
      .withResponse();
    previous = data.id;
    const workflowId = response.headers.get('x-switchyard-workflow-id')!;
    const description = await switchyard.temporal.workflow.getHandle(workflowId).describe();
    const historyBytes = description.historySize ?? Number.NaN;
    totalBytes += historyBytes;
    rows.push({
      turn,
      inputChars: input.length,
      answerChars: data.output_text.length,
      historyEvents: description.historyLength,
      historyBytes,
      totalBytes,
    });
  }
  return rows;
}

export function renderChainTable(rows: readonly ChainTurn[]): string {
  const cell = (value: string | number, width: number) => String(value).padStart(width);
  return [
    '| turn | input chars | answer chars | events | history bytes | chain total bytes |',
    '| ---: | ----------: | -----------: | -----: | ------------: | ----------------: |',
    ...rows.map(
      (row) =>
        `| ${cell(row.turn, 4)} | ${cell(row.inputChars, 11)} | ${cell(row.answerChars, 12)} | ` +
        `${cell(row.historyEvents, 6)} | ${cell(row.historyBytes, 13)} | ${cell(row.totalBytes, 17)} |`,
    ),
  ].join('\n');
}

/** Alone: a dev server, the fake answering at once, one worker and the gateway, all in this process. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { turns: { type: 'string', default: '10' }, 'turn-chars': { type: 'string', default: '2000' } },
  });
  const turns = Number(values.turns);
  const turnChars = Number(values['turn-chars']);
  if (!Number.isInteger(turns) || turns < 1 || !Number.isInteger(turnChars) || turnChars < 1) {
    throw new Error('--turns and --turn-chars take positive integers');
  }
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const log = (text: string) => process.stderr.write(`[bench] ${text}\n`);
  log('starting the dev server, the fake provider, a worker and the gateway');
  const server = await startDevServer({ headless: true });
  const fake = await startFakeProvider();
  const config = benchConfig({ '0ms': fake.openaiBaseURL, '50ms': fake.openaiBaseURL });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const taskQueue = `bench-responses-history-${Date.now().toString(36)}`;
  const worker = await createSwitchyardWorker({
    config,
    connection: nativeConnection,
    taskQueue,
    providers: createProviderRegistry(config, { ...BENCH_KEYS }),
  });
  const switchyard = new SwitchyardClient({ client: new Client({ connection }), taskQueue, config });
  const keysDirectory = mkdtempSync(path.join(tmpdir(), 'switchyard-bench-keys-'));
  const keys = new KeyStore({ file: path.join(keysDirectory, 'keys.json') });
  const { key } = keys.create({ routes: ['*'] });
  const gateway = await startGateway({ switchyard, config, keys, port: 0 });
  try {
    log(`a chain of ${turns} turns of ${turnChars} characters each`);
    const rows = await worker.runUntil(
      measureChain(switchyard, gateway.url, key, { route: MODE_ROUTE['0ms'], turns, turnChars }),
    );
    const outFile = path.join(__dirname, 'results', 'responses-history.tmp.json');
    mkdirSync(path.dirname(outFile), { recursive: true });
    writeFileSync(outFile, `${JSON.stringify({ turns, turnChars, rows }, null, 2)}\n`);
    process.stdout.write(`${renderChainTable(rows)}\n`);
    log(`wrote ${path.relative(process.cwd(), outFile)}`);
  } finally {
    await gateway.close();
    rmSync(keysDirectory, { recursive: true, force: true });
    await connection.close();
    await nativeConnection.close();
    await fake.close();
    await server.stop();
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(
        `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
