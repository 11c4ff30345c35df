// No partial start on a real dev server: malformed calls, schedules and command lines create nothing.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ScheduleNotFoundError, WorkflowNotFoundError } from '@temporalio/client';
import fc from 'fast-check';
import { InvalidRequestError } from '../../src/client/errors';
import { SwitchyardClient, validateCallInput } from '../../src/client/switchyard-client';
import { parseConfig } from '../../src/config/load-config';
import type { RoutedCallInputValue } from '../../src/config/routed-call-input';
import { ScheduleDefinitionSchema, type ScheduleDefinitionInput } from '../../src/config/schedule';
import { routedCallWorkflowId } from '../../src/workflows/definitions';
import { connectForTest, temporalAddress, uniqueName, type TemporalTestContext } from '../support/temporal';
import { fuzzSeed } from '../unit/fuzz/fuzz-settings';
import { applyMutation, mutationOf, type Mutation } from '../unit/fuzz/json-mutations';
import { callFieldsFor, scheduleFieldsFor } from '../unit/fuzz/request-oracle';
import {
  REQUEST_DOMAIN_VALUES,
  SCHEDULE_DOMAIN_VALUES,
  VALID_CONFIG,
  VALID_CRON_SCHEDULE,
  VALID_INLINE_CALL,
} from '../unit/fuzz/valid-inputs';

const SAMPLES = 50;
const BIN = path.resolve(__dirname, '../../bin/switchyard.js');

let context: TemporalTestContext;
let switchyard: SwitchyardClient;
beforeAll(async () => {
  context = await connectForTest();
  // No worker polls this queue: whatever starts stays visible until the test ends it.
  switchyard = new SwitchyardClient({
    client: context.client,
    taskQueue: uniqueName('bad-input'),
    config: parseConfig(VALID_CONFIG),
  });
});
afterAll(async () => context?.close());

/** `count` mutations of `base` that `isRefused` refuses, from the run's fixed seed. */
function malformed(
  base: unknown,
  domain: readonly unknown[],
  isRefused: (value: unknown) => boolean,
  count: number,
) {
  const found: { mutation: Mutation; value: unknown }[] = [];
  let seed = fuzzSeed();
  while (found.length < count) {
    for (const mutation of fc.sample(mutationOf(base, domain), { seed, numRuns: 200 })) {
      const value = applyMutation(base, mutation);
      if (found.length < count && isRefused(value)) found.push({ mutation, value });
    }
    seed += 1;
  }
  return found;
}

function isRefusedCall(value: unknown): boolean {
  try {
    validateCallInput(value as RoutedCallInputValue);
    return false;
  } catch {
    return true;
  }
}

/** The refusal names the mutated field as the unit fuzz defines it: that field, inside it, or its parent. */
function expectNamed(error: unknown, fields: readonly (readonly (string | number)[])[]) {
  expect(error).toBeInstanceOf(InvalidRequestError);
  const field = (error as InvalidRequestError).field;
  const named = fields.some((expected) => {
    const text = expected.join('.');
    return field === text || field.startsWith(`${text}.`) || field === expected.slice(0, -1).join('.');
  });
  if (!named)
    throw new Error(`refused at "${field}", expected one of ${fields.map((f) => f.join('.')).join(', ')}`);
}

async function expectNoWorkflow(workflowId: string) {
  await expect(context.client.workflow.getHandle(workflowId).describe()).rejects.toBeInstanceOf(
    WorkflowNotFoundError,
  );
}

async function expectNoSchedule(scheduleId: string) {
  await expect(context.client.schedule.getHandle(scheduleId).describe()).rejects.toBeInstanceOf(
    ScheduleNotFoundError,
  );
}

test(`${SAMPLES} malformed routed calls are refused naming the field, and no workflow starts`, async () => {
  // The control: a valid call through the same path does start, so the describe below can see one.
  const controlKey = uniqueName('bad-input-control');
  const control = await switchyard.start(VALID_INLINE_CALL, { idempotencyKey: controlKey });
  await expect(context.client.workflow.getHandle(control.workflowId).describe()).resolves.toBeDefined();
  await context.client.workflow.getHandle(control.workflowId).terminate('bad-input control');

  const samples = malformed(VALID_INLINE_CALL, REQUEST_DOMAIN_VALUES, isRefusedCall, SAMPLES);
  for (const { mutation, value } of samples) {
    const key = uniqueName('bad-input-call');
    const error = await switchyard.start(value as RoutedCallInputValue, { idempotencyKey: key }).then(
      () => undefined,
      (refusal: unknown) => refusal,
    );
    expectNamed(error, callFieldsFor(mutation));
    await expectNoWorkflow(routedCallWorkflowId(key));
  }
  console.log(
    `[reliability] bad-input: ${samples.length}/${SAMPLES} malformed calls refused, 0 workflows started`,
  );
});

test(`${SAMPLES} malformed schedules are refused naming the field, and no schedule is created`, async () => {
  const controlId = uniqueName('bad-input-control');
  await switchyard.schedules.create({ ...VALID_CRON_SCHEDULE, id: controlId });
  await expect(context.client.schedule.getHandle(controlId).describe()).resolves.toBeDefined();
  await context.client.schedule.getHandle(controlId).delete();

  const base = { ...VALID_CRON_SCHEDULE, id: 'bad-input-schedule' };
  const samples = malformed(
    base,
    SCHEDULE_DOMAIN_VALUES,
    (value) => !ScheduleDefinitionSchema.safeParse(value).success,
    SAMPLES,
  );
  for (const { mutation, value } of samples) {
    // A fresh id per sample (unless the id itself is the mistake), so a leak could not hide behind another.
    const id = mutation.path[0] === 'id' ? (value as { id: unknown }).id : uniqueName('bad-input-schedule');
    const definition = {
      ...(value as object),
      ...(mutation.path[0] === 'id' ? {} : { id }),
    } as ScheduleDefinitionInput;
    const error = await switchyard.schedules.create(definition).then(
      () => undefined,
      (refusal: unknown) => refusal,
    );
    expectNamed(error, scheduleFieldsFor(mutation));
    if (typeof id === 'string' && id !== '' && !id.includes('\u0000')) await expectNoSchedule(id);
  }
  console.log(
    `[reliability] bad-input: ${samples.length}/${SAMPLES} malformed schedules refused, 0 schedules created`,
  );
});

test('the switchyard binary refuses malformed command lines with exit 2 naming the flag, and starts nothing', async () => {
  const key = uniqueName('bad-input-cli');
  const scheduleId = uniqueName('bad-input-cli');
  const cases: { argv: string[]; named: string }[] = [
    { argv: ['call', 'hi', '--idempotency-key', key, '--temperature', '7'], named: '--temperature' },
    {
      argv: ['call', 'hi', '--idempotency-key', key, '--max-output-tokens', '0'],
      named: '--max-output-tokens',
    },
    { argv: ['call', 'hi', '--idempotency-key', key, '--route', '{"targets": []}'], named: '--route' },
    {
      argv: ['call', 'hi', '--idempotency-key', key, '--routes', 'support'],
      named: 'unknown option --routes',
    },
    { argv: ['call', 'hi', '--idempotency-key', 'k'.repeat(985)], named: '--idempotency-key is too long' },
    { argv: ['schedule', 'create', scheduleId, '--cron', '61 * * * *', '--prompt', 'hi'], named: '--cron' },
    { argv: ['schedule', 'create', scheduleId, '--every', '500ms', '--prompt', 'hi'], named: '--every' },
    {
      argv: [
        'schedule',
        'create',
        scheduleId,
        '--every',
        '1h',
        '--prompt',
        'hi',
        '--timezone',
        'Mars/Olympus',
      ],
      named: '--timezone',
    },
  ];
  for (const { argv, named } of cases) {
    const result = spawnSync(
      process.execPath,
      [BIN, ...argv, '--address', temporalAddress(), '--task-queue', switchyard.taskQueue],
      {
        encoding: 'utf8',
        input: '',
        timeout: 60_000,
      },
    );
    expect({ argv, code: result.status }).toEqual({ argv, code: 2 });
    expect(result.stderr).toContain(named);
  }
  await expectNoWorkflow(routedCallWorkflowId(key));
  await expectNoSchedule(scheduleId);
});
