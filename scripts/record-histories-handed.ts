// The scenario of `npm run histories:record` for an answer handed to a gateway's relay ahead of the call's record,
// whose attempt is then lost: the call ends with the answer from the attempt's last heartbeat. Script side.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { ROUTED_CALL_WORKFLOW_TYPE } from '../src/workflows/definitions';
import { runIdOf, type Recorded, type ScenarioContext } from './record-histories-scenario';

/** The model whose attempt hands its answer over and then never reports its completion. */
export const HANDED_MODEL = 'handed-primary';
/** The handed route's heartbeat timeout, in milliseconds: the held completion outlasts it. */
export const HANDED_HEARTBEAT_TIMEOUT_MS = 1_000;
const HOLD_MS = 3_000;

const request = { messages: [{ role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 64 };

/**
 * Holds the completion of each attempt on {@link HANDED_MODEL} past its heartbeat timeout, after the attempt
 * handed its answer over: the server gives the attempt up, as it would a worker lost at that moment.
 */
export function holdHandedAttempts(): ActivityInterceptorsFactory {
  return (context) => ({
    inbound: {
      async execute(input, next) {
        const result = await next(input);
        const [attempt] = input.args as [{ target?: { model?: string } } | undefined];
        if (context.info.activityType === 'attemptTarget' && attempt?.target?.model === HANDED_MODEL) {
          await delay(HOLD_MS);
        }
        return result;
      },
    },
  });
}

/** (l) A whole answer handed to a relay, then its attempt lost: the call ends with that answer, not failed over. */
export async function handedThenLost({ switchyard, client, fake }: ScenarioContext): Promise<Recorded[]> {
  fake.scriptAlways(HANDED_MODEL, {
    kind: 'answer',
    text: 'handed',
    usage: { inputTokens: 10, outputTokens: 5 },
  });
  // The gateway's end of the relay, reduced to taking every push.
  let pushes = 0;
  const relay = createServer((incoming, response) => {
    incoming.resume();
    incoming.on('end', () => {
      pushes += 1;
      response.writeHead(200).end('{"status":200}');
    });
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = relay.address() as AddressInfo;
    const handle = await switchyard.start({
      route: 'handed',
      request,
      relay: {
        url: `http://127.0.0.1:${port}/switchyard/relay/recorder`,
        token: 'r'.repeat(43),
        answer: true,
      },
    });
    const { answer, record } = await handle.result();
    if (
      pushes !== 1 ||
      answer.text !== 'handed' ||
      record.attempts.length !== 1 ||
      fake.counters(HANDED_MODEL).requests !== 1
    )
      throw new Error(
        `handed-then-lost scenario went another way: ${pushes} pushes, ${JSON.stringify(record)}`,
      );
    // Let the held attempt finish (its completion is refused: the server gave it up) before recording.
    await delay(HOLD_MS);
    return [
      {
        name: 'routed-call-v2-handed-then-lost',
        scenario:
          "routed call whose attempt handed its answer to a gateway's relay and was then lost: the call ends with that answer",
        workflowType: ROUTED_CALL_WORKFLOW_TYPE,
        workflowId: handle.workflowId,
        runId: await runIdOf(client, handle.workflowId),
      },
    ];
  } finally {
    relay.closeAllConnections();
    await new Promise<void>((resolve) => relay.close(() => resolve()));
  }
}
