// The bundle's pure modules (schemas, rules, message definitions), loaded once per worker and shared. Workflow code.
//
// The worker preloads this module into its reusable V8 context: everything it imports is evaluated once and
// shared by every workflow, instead of being evaluated again for each new workflow (building the zod schemas
// was about a third of a routed call's workflow CPU). Only modules without per-workflow state belong here: no
// activity proxies, no handlers, no workflow state of any kind.
//
// The SDK deep-freezes what it shares. zod schemas do not survive that (their checks and lazily computed
// definitions write to their own internals), so every schema exported by a module loaded here is frozen
// shallowly first: the SDK's freeze stops at an object that is already frozen, and the schema's internals stay
// as zod needs them. Nothing a workflow could change is reachable through a frozen schema's own properties.
//
// Every module workflow code loads belongs here if it is pure: one left out is built again for each workflow,
// and in the entity worker, whose breakers, ledgers and registry live long, that garbage outlives the young
// generation. The route registry's modules (config, provider and runtime-route schemas) were left out: at 45
// concurrent routed calls they were 126 of the 158 MB the entity thread allocated in 9 s, freed only by full
// collections; its heap grew from 60 to 200-260 MB and the worker's peak RSS to 535-800 MB (here: 77-107 MB
// and 417-457 MB, bench/worker-rss.ts).
import * as routedCallInput from '../config/routed-call-input';
import * as request from '../config/request';
import * as relay from '../config/relay';
import * as route from '../config/route';
import * as schedule from '../config/schedule';
import * as budget from '../config/budget';
import * as config from '../config/config';
import * as providerSchema from '../config/provider-schema';
import * as runtimeRoutes from '../config/runtime-routes';
import * as breakerDefinitions from './breaker/definitions';
import * as ledgerDefinitions from './ledger/ledger-definitions';
import * as responseCacheDefinitions from './response-cache/definitions';
import * as routeRegistryDefinitions from './route-registry/definitions';
import '../routing/attempt-cost';
import '../routing/attempt-plan';
import '../routing/breaker-admission';
import '../routing/breaker-transitions';
import '../routing/estimate-tokens';
import '../routing/ledger-limits';
import '../routing/ledger-snapshot';
import '../routing/ledger-state';
import '../routing/patience';
import '../routing/render-attempts';
import '../routing/routing-record';
import './definitions';
import './metric-names';
import './scheduled-generation/definitions';
import './search-attributes';

function isSchema(value: unknown): value is object {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/** Freezes each schema found in `value` (itself, or inside plain objects and arrays) shallowly. */
function freezeSchemasShallowly(value: unknown, seen: Set<unknown>): void {
  if (typeof value !== 'object' || value === null || seen.has(value)) return;
  seen.add(value);
  if (isSchema(value)) {
    Object.freeze(value);
    return;
  }
  for (const key of Object.keys(value)) freezeSchemasShallowly((value as Record<string, unknown>)[key], seen);
}

const seen = new Set<unknown>();
for (const module of [
  routedCallInput,
  request,
  relay,
  route,
  schedule,
  budget,
  config,
  providerSchema,
  runtimeRoutes,
  breakerDefinitions,
  ledgerDefinitions,
  responseCacheDefinitions,
  routeRegistryDefinitions,
]) {
  for (const key of Object.keys(module))
    freezeSchemasShallowly((module as Record<string, unknown>)[key], seen);
}
