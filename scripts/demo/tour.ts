// What every tour step gets: the client, the fake provider, links into the Web UI, and printing. Script side.
import { renderRoutingRecord } from '../../src/cli/render-routing-record';
import type { SwitchyardClient } from '../../src/client/switchyard-client';
import type { FakeProvider } from '../../src/fake-provider';
import type { RoutingRecord } from '../../src/routing/routing-record';
import { workflowLink } from './demo-stack';
import { indented, say } from './progress';

export interface Tour {
  readonly switchyard: SwitchyardClient;
  readonly fake: FakeProvider;
  readonly uiUrl: string | undefined;
  /** Whether the real providers have keys (each live target is present only then). */
  readonly live: { readonly openai: boolean; readonly anthropic: boolean };
}

/** One step of the tour: a heading and a run; `skip` explains in one line why it cannot run here. */
export interface TourStep {
  readonly title: string;
  skip?(tour: Tour): string | undefined;
  run(tour: Tour): Promise<void>;
}

/** Prints a routing record as a table, then the Web UI link of its workflow. */
export function printRecord(tour: Tour, record: RoutingRecord, leading: [string, string][] = []): void {
  say('');
  indented(renderRoutingRecord(record, leading));
  say(`  Web UI: ${workflowLink(tour.uiUrl, record.workflowId)}`);
}

/** The `request` part of a call's input, to spread into it: one user message and an output cap. */
export function prompt(content: string, maxOutputTokens = 100) {
  return { request: { messages: [{ role: 'user' as const, content }], maxOutputTokens } };
}
