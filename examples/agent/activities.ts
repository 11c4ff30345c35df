// The sample agent's tool, an ordinary activity on the agent's own worker (not Switchyard's). Worker side.

export interface OrderLookup {
  readonly orderId: string;
}

export interface OrderStatus {
  readonly orderId: string;
  readonly status: 'processing' | 'shipped' | 'unknown';
  /** Expected delivery day (ISO date), when shipped. */
  readonly eta?: string;
}

/** A stand-in for the agent's real back end: the order book is given, so runs are reproducible. */
export function createAgentActivities(orders: Readonly<Record<string, Omit<OrderStatus, 'orderId'>>>) {
  return {
    async lookUpOrder({ orderId }: OrderLookup): Promise<OrderStatus> {
      return { orderId, ...(orders[orderId] ?? { status: 'unknown' }) };
    },
  };
}

export type AgentActivities = ReturnType<typeof createAgentActivities>;
