// The schemas workflow code parses still work once shared and frozen, as a worker's preloaded modules are.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { RoutedCallInputSchema } from '../../../src/config/routed-call-input';
import { ScheduledGenerationInputSchema } from '../../../src/config/schedule';
import {
  BreakerAdmitInputSchema,
  BreakerOutcomeInputSchema,
  BreakerResetInputSchema,
} from '../../../src/workflows/breaker/definitions';
import {
  LedgerWorkflowInputSchema,
  LimitChangeSchema,
  ReleaseSchema,
  ReserveBatchSchema,
  SettlementSchema,
} from '../../../src/workflows/ledger/ledger-definitions';
import {
  DeleteRouteInputSchema,
  SetRouteInputSchema,
} from '../../../src/workflows/route-registry/definitions';
import { VALID_INLINE_CALL, VALID_NAMED_CALL } from '../fuzz/valid-inputs';

/**
 * The worker's reusable V8 context freezes every preloaded module this way (the SDK's `deepFreeze` in
 * `reusable-vm.js`): each reachable object and function, its own properties first.
 */
function deepFreeze(value: unknown, seen = new WeakSet<object>()): void {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return;
  if (seen.has(value) || Object.isFrozen(value)) return;
  seen.add(value);
  if (typeof value === 'object') {
    for (const key of [...Object.getOwnPropertyNames(value), ...Object.getOwnPropertySymbols(value)]) {
      try {
        deepFreeze((value as Record<PropertyKey, unknown>)[key], seen);
      } catch {
        // Some objects cannot be frozen (typed arrays); the SDK skips them too.
      }
    }
  }
  Object.freeze(value);
}

const policy = { failureThreshold: 3, cooldownMs: 30_000 };
const cases: [string, z.ZodType, unknown, unknown][] = [
  // [name, schema, a valid value, an invalid value that reaches every check of the valid one's shape]
  [
    'routed call, inline route with tools',
    RoutedCallInputSchema,
    VALID_INLINE_CALL,
    {
      ...VALID_INLINE_CALL,
      request: { ...VALID_INLINE_CALL.request, tools: [{ name: 'bad name!', parameters: {} }] },
    },
  ],
  ['routed call, named route', RoutedCallInputSchema, VALID_NAMED_CALL, { ...VALID_NAMED_CALL, route: '' }],
  [
    'scheduled run',
    ScheduledGenerationInputSchema,
    {
      scheduleId: 'digest-1',
      call: VALID_NAMED_CALL,
      deliver: { webhookUrl: 'https://hooks.example.com/x', directory: '/var/lib/switchyard' },
      callSummary: 'route support',
    },
    { scheduleId: 'not a valid id!', call: VALID_NAMED_CALL, deliver: { webhookUrl: 'ftp://x' } },
  ],
  ['ledger input', LedgerWorkflowInputSchema, { scope: 'team-a', windowMs: 1000 }, { scope: '' }],
  [
    'reserve batch',
    ReserveBatchSchema,
    {
      requests: [{ reservationId: 'r1', amountNanoUsd: 5, holder: 'w', leaseMs: 1000 }],
      declaredLimit: { limitNanoUsd: 10, period: 'day' },
    },
    { requests: [] },
  ],
  [
    'settle',
    SettlementSchema,
    { reservationId: 'r1', costNanoUsd: 1, costKnown: true },
    { reservationId: '' },
  ],
  ['release', ReleaseSchema, { reservationId: 'r1' }, {}],
  ['limit change', LimitChangeSchema, { limitNanoUsd: 5, period: 'month' }, { limitNanoUsd: -1 }],
  ['breaker admit', BreakerAdmitInputSchema, { policy, caller: 'w#1', probeLeaseMs: 1000 }, { caller: 1 }],
  [
    'breaker outcome',
    BreakerOutcomeInputSchema,
    { policy, caller: 'w#1', outcome: 'success', reportId: 'w#1:success' },
    { outcome: 'maybe' },
  ],
  ['breaker reset', BreakerResetInputSchema, { by: 'operator' }, { by: 5 }],
  [
    'set route',
    SetRouteInputSchema,
    { name: 'support', spec: { targets: [{ provider: 'openai', model: 'gpt-4o-mini' }] }, by: 'ops' },
    { name: 'not a name!', spec: [], by: '' },
  ],
  ['delete route', DeleteRouteInputSchema, { name: 'support', expectedVersion: 2 }, { expectedVersion: -1 }],
];

const SHARED_MODULES = path.resolve(__dirname, '../../../src/workflows/shared-modules.ts');

/** Every project module `file` loads at run time, itself included (type-only imports do not load). */
function importClosure(file: string, found = new Set<string>()): Set<string> {
  if (found.has(file)) return found;
  found.add(file);
  const source = readFileSync(file, 'utf8');
  for (const match of source.matchAll(/^import (?!type )[^;]*?['"](\.{1,2}\/[^'"]+)['"];/gms)) {
    importClosure(path.resolve(path.dirname(file), `${match[1]}.ts`), found);
  }
  return found;
}

const closure = [...importClosure(SHARED_MODULES)];

beforeAll(() => {
  // As the worker does: load the shared modules first, then freeze everything they loaded the SDK's way.
  require(SHARED_MODULES);
  for (const file of closure) deepFreeze(require(file));
});

test('the shared modules load the modules of every schema workflow code parses', () => {
  const names = closure.map((file) => path.relative(path.resolve(__dirname, '../../../src'), file));
  expect(names).toEqual(
    expect.arrayContaining([
      'config/routed-call-input.ts',
      'config/schedule.ts',
      'workflows/breaker/definitions.ts',
      'workflows/ledger/ledger-definitions.ts',
      'workflows/route-registry/definitions.ts',
      'config/runtime-routes.ts',
    ]),
  );
});

test('every schema a shared module exports was frozen shallowly before the SDK could deep-freeze it', () => {
  const unshielded = closure.flatMap((file) =>
    Object.entries(require(file) as Record<string, unknown>)
      .filter(([, value]) => typeof value === 'object' && value !== null && '_zod' in value)
      // Frozen internals mean the SDK's freeze reached into the schema: its next parse may throw.
      .filter(([, value]) => Object.isFrozen((value as { _zod: object })._zod))
      .map(([name]) => `${path.basename(file)}: ${name}`),
  );
  expect(unshielded).toEqual([]);
});

test.each(cases)('%s: parses and refuses once frozen', (_name, schema, valid, invalid) => {
  expect(schema.safeParse(valid).error).toBeUndefined();
  expect(schema.safeParse(invalid).success).toBe(false);
});
