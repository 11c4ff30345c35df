// The Switchyard config file schema: providers, models, routes, default route, budgets. Workflow-safe (zod only).
import { z } from 'zod';
import { strictObject } from './strict-object';
import { BudgetSchema, BudgetScopeSchema } from './budget';
import { ProviderSchema } from './provider-schema';
import { isNestedRouteTarget, RouteSpecSchema } from './route';

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$/;

/** `record[key]` when it is the record's own entry; inherited members (`constructor`, `toString`) are not. */
export function ownEntry<Value>(record: Readonly<Record<string, Value>>, key: string): Value | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Checks a record's keys against `pattern`, reporting `message` at the key's own path. As the record's key schema
 * the same check would be reported by zod as a bare "Invalid key in record".
 */
function keysMatch(pattern: RegExp, message: string) {
  return (record: Record<string, unknown>, context: z.RefinementCtx) => {
    for (const key of Object.keys(record))
      if (!pattern.test(key)) context.addIssue({ code: 'custom', path: [key], message });
  };
}

export const ConfigSchema = strictObject({
  // Names travel in the gateway's routing headers: ASCII only (see ModelNameSchema for models).
  providers: z
    .record(z.string(), ProviderSchema)
    .superRefine(
      keysMatch(NAME, 'provider names are letters, digits, . _ - (1-64, starting with a letter or digit)'),
    ),
  routes: z
    .record(z.string(), RouteSpecSchema)
    .superRefine(
      keysMatch(NAME, 'route names are letters, digits, . _ - (1-64, starting with a letter or digit)'),
    ),
  /** Route used when a call names none. */
  defaultRoute: z.string().optional(),
  /**
   * Budget limits by scope. A scope's ledger takes its limit from here when it starts and whenever this
   * declaration changes; `ledgers.setLimit` overrides it until then.
   * @default none: every scope is unlimited but tracked
   */
  budgets: z.record(BudgetScopeSchema, BudgetSchema).optional(),
}).superRefine((config, context) => {
  // Names are looked up as own keys: `constructor` or `__proto__` must not find Object.prototype's members.
  for (const [routeName, route] of Object.entries(config.routes)) {
    route.targets.forEach((target, index) => {
      if (isNestedRouteTarget(target)) {
        const nested = ownEntry(config.routes, target.route);
        const message = !nested
          ? `no route named "${target.route}"`
          : target.route === routeName
            ? `route "${routeName}" cannot nest itself`
            : nested.targets.some(isNestedRouteTarget)
              ? `route "${target.route}" nests other routes itself; a nested route holds targets only`
              : undefined;
        if (message) {
          context.addIssue({
            code: 'custom',
            path: ['routes', routeName, 'targets', index, 'route'],
            message,
          });
        }
        return;
      }
      const provider = ownEntry(config.providers, target.provider);
      if (!provider) {
        context.addIssue({
          code: 'custom',
          path: ['routes', routeName, 'targets', index, 'provider'],
          message: `unknown provider "${target.provider}" (configured: ${Object.keys(config.providers).join(', ') || 'none'})`,
        });
      } else if (!ownEntry(provider.models, target.model)) {
        context.addIssue({
          code: 'custom',
          path: ['routes', routeName, 'targets', index, 'model'],
          message: `provider "${target.provider}" has no model "${target.model}" in its models`,
        });
      }
    });
  }
  if (config.defaultRoute !== undefined && !ownEntry(config.routes, config.defaultRoute)) {
    context.addIssue({
      code: 'custom',
      path: ['defaultRoute'],
      message: `no route named "${config.defaultRoute}"`,
    });
  }
});

export type ConfigInput = z.input<typeof ConfigSchema>;
export type Config = z.infer<typeof ConfigSchema>;
