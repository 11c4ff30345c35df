// Delivery of scheduled results on a real dev server: a loopback webhook receiver and a directory.
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ScheduledRun, Schedules } from '../../src/client/schedules';
import {
  deliveredFileName,
  type ScheduledCallOutcome,
} from '../../src/workflows/scheduled-generation/definitions';
import { eventually, nextSecondAfter } from '../support/eventually';
import { startHarness, type Harness } from '../support/harness';
import { uniqueName } from '../support/temporal';
import { TRIGGERED_ONLY } from '../support/schedule-interval';

const request = {
  messages: [{ role: 'user' as const, content: 'Summarise the night' }],
  maxOutputTokens: 64,
};

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: ScheduledCallOutcome;
  /** The status the receiver answered with. */
  readonly status: number;
}

/** A webhook receiver on 127.0.0.1: answers each POST with the next scripted status, then 200. */
class Receiver {
  readonly received: Received[] = [];
  private readonly server: Server;
  private readonly statuses: number[];

  constructor(statuses: number[] = []) {
    this.statuses = [...statuses];
    this.server = createServer((incoming, response) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const status = this.statuses.shift() ?? 200;
        this.received.push({
          headers: incoming.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ScheduledCallOutcome,
          status,
        });
        response.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/switchyard?token=t0ps3cret`;
  }

  /** Deliveries the receiver accepted, by idempotency key. */
  accepted(): Received[] {
    return this.received.filter((delivery) => delivery.status === 200);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let harness: Harness;
let receiver: Receiver | undefined;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness?.close());
beforeEach(() => harness.fake.reset());
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function withScheduleId<T>(schedules: Schedules, body: (id: string) => Promise<T>): Promise<T> {
  const id = uniqueName('delivery');
  try {
    return await body(id);
  } finally {
    await schedules.delete(id).catch(() => undefined);
  }
}

function resultsOf(schedules: Schedules, id: string, count: number): Promise<ScheduledRun[]> {
  return eventually(
    `${count} finished runs of ${id}`,
    () => schedules.results(id),
    (runs) => runs.length === count && runs.every((run) => run.status !== 'RUNNING'),
  );
}

test('a webhook receiver on loopback gets each result once, and the directory gets a file per run', async () => {
  // The first POST meets a busy receiver: the delivery is retried with the same key.
  receiver = new Receiver([503]);
  const webhookUrl = await receiver.listen();
  const directory = await mkdtemp(path.join(tmpdir(), 'switchyard-deliveries-'));
  await harness.withWorker(async ({ schedules }) => {
    await withScheduleId(schedules, async (id) => {
      await schedules.create({
        id,
        every: TRIGGERED_ONLY,
        call: { route: 'support', request },
        deliver: { webhookUrl, directory },
      });
      await schedules.trigger(id);
      const [first] = await resultsOf(schedules, id, 1);
      await nextSecondAfter(first!.scheduledAt ?? first!.startedAt);
      await schedules.trigger(id);
      const runs = await resultsOf(schedules, id, 2);

      const accepted = receiver!.accepted();
      expect(accepted.map((delivery) => delivery.headers['idempotency-key']).sort()).toEqual(
        runs.map((run) => run.workflowId).sort(),
      );
      expect(receiver!.received).toHaveLength(3);
      expect(receiver!.received[0]!.headers['idempotency-key']).toBe(first!.workflowId);
      for (const run of runs) {
        const delivered = accepted.find(
          (delivery) => delivery.headers['idempotency-key'] === run.workflowId,
        )!;
        expect(delivered.headers['content-type']).toBe('application/json');
        expect(delivered.headers['switchyard-schedule-id']).toBe(id);
        expect(delivered.body).toMatchObject({
          outcome: 'succeeded',
          scheduleId: id,
          workflowId: run.workflowId,
          callWorkflowId: run.callWorkflowId,
          answer: { text: run.answer!.text },
          record: { workflowId: run.callWorkflowId, servedBy: { provider: 'openai' } },
        });
        expect(run.delivery?.webhook).toMatchObject({ delivered: true, status: 200 });
        expect(run.delivery?.directory).toMatchObject({ delivered: true });

        const file = path.join(directory, deliveredFileName(run.workflowId));
        expect(run.delivery?.directory).toMatchObject({ file });
        expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(delivered.body);
      }
      expect(runs.find((run) => run.workflowId === first!.workflowId)!.delivery?.webhook).toMatchObject({
        attempts: 2,
      });
      // Files appear whole, by rename: no temporary file is left behind.
      expect((await readdir(directory)).sort()).toEqual(
        runs.map((run) => deliveredFileName(run.workflowId)).sort(),
      );
    });
  });
});

test('a failed call is delivered as {error, record}, and the run fails with the call’s type', async () => {
  const directory = await mkdtemp(path.join(tmpdir(), 'switchyard-deliveries-'));
  await harness.withWorker(async ({ schedules }) => {
    await withScheduleId(schedules, async (id) => {
      await schedules.create({
        id,
        every: TRIGGERED_ONLY,
        // No target fits a millionth of a cent: the call fails BudgetExceeded without calling anything.
        call: { route: 'support', request, maxCostUsd: 0.00000001, patienceMs: 0 },
        deliver: { directory },
      });
      await schedules.trigger(id);
      const [run] = await resultsOf(schedules, id, 1);
      expect(run).toMatchObject({
        status: 'FAILED',
        error: { type: 'BudgetExceeded' },
        record: { attempts: [{ outcome: 'skipped', skipReason: 'over_budget' }, expect.anything()] },
        delivery: { directory: { delivered: true } },
      });
      expect(run!.answer).toBeUndefined();
      const delivered = JSON.parse(
        await readFile(path.join(directory, deliveredFileName(run!.workflowId)), 'utf8'),
      ) as ScheduledCallOutcome;
      expect(delivered).toMatchObject({
        outcome: 'failed',
        scheduleId: id,
        workflowId: run!.workflowId,
        error: { type: 'BudgetExceeded' },
        record: { workflowId: run!.callWorkflowId },
      });
      expect(harness.fake.requests).toHaveLength(0);
    });
  });
});

test('a webhook that refuses (4xx) is not retried, and the result is kept', async () => {
  receiver = new Receiver([400]);
  const webhookUrl = await receiver.listen();
  await harness.withWorker(async ({ schedules }) => {
    await withScheduleId(schedules, async (id) => {
      await schedules.create({
        id,
        every: TRIGGERED_ONLY,
        call: { route: 'support', request },
        deliver: { webhookUrl },
      });
      await schedules.trigger(id);
      const [run] = await resultsOf(schedules, id, 1);
      expect(run).toMatchObject({
        status: 'COMPLETED',
        answer: { text: expect.stringContaining('Summarise the night') },
        delivery: { webhook: { delivered: false, error: expect.stringContaining('answered 400') } },
      });
      // The message names the receiver's origin, never its path or query (which may carry a token).
      expect(run!.delivery?.webhook).not.toMatchObject({ error: expect.stringContaining('t0ps3cret') });
      expect(receiver!.received).toHaveLength(1);
    });
  });
});
