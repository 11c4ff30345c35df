// The history queue processors' poll-rate limits, which the embedded engine lifts: the knobs of the tuning matrix,
// and the setting of the bench's second dev server left at the server's defaults. Bench side.

/**
 * Each history shard's queue processors' poll-rate limits, by queue. The server's default is 20 reads per second;
 * the embedded engine (`startDevServer`) raises all four to 1000 (docs/operations.md, "Search attributes and
 * dynamic config").
 */
export const QUEUE_LIMITS = {
  transfer: 'history.transferProcessorMaxPollRPS',
  timer: 'history.timerProcessorMaxPollRPS',
  visibility: 'history.visibilityProcessorMaxPollRPS',
  outbound: 'history.outboundProcessorMaxPollRPS',
} as const;
export type QueueName = keyof typeof QUEUE_LIMITS;

/** The server's own limit, in reads per second. */
const SERVER_DEFAULT_RPS = 20;
/** The embedded engine's limit, in reads per second. */
const RAISED_RPS = 1_000;

/** Dynamic config with every queue at the server's default limit, and `raised` lifted to the engine's. */
export function queuePollRates(...raised: QueueName[]): Record<string, number> {
  return Object.fromEntries(
    Object.entries(QUEUE_LIMITS).map(([queue, key]) => [
      key,
      raised.includes(queue as QueueName) ? RAISED_RPS : SERVER_DEFAULT_RPS,
    ]),
  );
}
