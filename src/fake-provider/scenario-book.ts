// Per-model scripting state of the fake provider: queued scenarios, standing scenarios and outages.
import type { RandomFaults } from './random-faults';
import type { FakeErrorName, FakeScenario } from './scenario';

/** Scripts keyed by this model name apply to every model that has no script of its own. */
export const ANY_MODEL = '*';

export interface FakeOutageOptions {
  /** The outage starts at this time, in epoch milliseconds. @default now */
  readonly from?: number;
  /** The outage ends at this time, in epoch milliseconds. @default until `recover(model)` or `reset()` */
  readonly until?: number;
  /** What every request gets during the outage. @default `{ kind: 'error', error: 'overloaded' }` */
  readonly scenario?: FakeScenario;
}

interface Outage {
  readonly from: number;
  readonly until: number;
  readonly scenario: FakeScenario;
}

const DEFAULT_OUTAGE_ERROR: FakeErrorName = 'overloaded';

/** Where a scenario came from, for the request log. */
export type ScenarioSource = 'header' | 'outage' | 'queue' | 'standing' | 'random' | 'default';

export interface ResolvedScenario {
  readonly scenario: FakeScenario | undefined;
  readonly source: ScenarioSource;
}

export class ScenarioBook {
  private readonly queues = new Map<string, FakeScenario[]>();
  private readonly standing = new Map<string, FakeScenario>();
  private readonly outages = new Map<string, Outage>();
  private randomFaults: RandomFaults | undefined;

  /** Appends scenarios that each serve exactly one request, in order. */
  enqueue(model: string, scenarios: readonly FakeScenario[]): void {
    const queue = this.queues.get(model) ?? [];
    queue.push(...scenarios);
    this.queues.set(model, queue);
  }

  /** Serves `scenario` to every request for `model` that no queue or outage claims. */
  setStanding(model: string, scenario: FakeScenario): void {
    this.standing.set(model, scenario);
  }

  startOutage(model: string, options: FakeOutageOptions, now: number): void {
    this.outages.set(model, {
      from: options.from ?? now,
      until: options.until ?? Number.POSITIVE_INFINITY,
      scenario: options.scenario ?? { kind: 'error', error: DEFAULT_OUTAGE_ERROR },
    });
  }

  endOutage(model: string): void {
    this.outages.delete(model);
  }

  /** Draws a scenario for every request no outage, queue or standing scenario claims (until `clear()`). */
  setRandomFaults(faults: RandomFaults | undefined): void {
    this.randomFaults = faults;
  }

  clear(): void {
    this.queues.clear();
    this.standing.clear();
    this.outages.clear();
    this.randomFaults = undefined;
  }

  /**
   * Picks the scenario for one request: an active outage first (it fails everything), then the queue,
   * then the standing scenario; the model's own scripts before the `*` ones; then a random fault, drawn from
   * the `provider/model` stream. Consumes a queue entry or a draw.
   */
  resolve(model: string, now: number, provider: string): ResolvedScenario {
    for (const key of [model, ANY_MODEL]) {
      const outage = this.outages.get(key);
      if (outage && now >= outage.from && now < outage.until)
        return { scenario: outage.scenario, source: 'outage' };
    }
    for (const key of [model, ANY_MODEL]) {
      const next = this.queues.get(key)?.shift();
      if (next) return { scenario: next, source: 'queue' };
    }
    for (const key of [model, ANY_MODEL]) {
      const scenario = this.standing.get(key);
      if (scenario) return { scenario, source: 'standing' };
    }
    if (this.randomFaults?.applies(model))
      return { scenario: this.randomFaults.next(provider, model), source: 'random' };
    return { scenario: undefined, source: 'default' };
  }
}
