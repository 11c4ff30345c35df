// How many requests each gateway key has in flight, and the cap on them. Node side.

/**
 * Counts each key's requests in flight. One key can then hold only so many of the gateway's connections, calls
 * and buffered bodies at once, however many requests its holder (or whoever stole it) sends.
 */
export class KeyConcurrency {
  private readonly inFlight = new Map<string, number>();

  /** @param limit most requests one key may have in flight at once */
  constructor(readonly limit: number) {}

  /** Takes a slot for `keyId`: a function giving it back (call it once), or undefined when the key is at its cap. */
  enter(keyId: string): (() => void) | undefined {
    const count = this.inFlight.get(keyId) ?? 0;
    if (count >= this.limit) return undefined;
    this.inFlight.set(keyId, count + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const remaining = (this.inFlight.get(keyId) ?? 1) - 1;
      if (remaining > 0) this.inFlight.set(keyId, remaining);
      else this.inFlight.delete(keyId);
    };
  }

  /** Requests `keyId` has in flight. */
  count(keyId: string): number {
    return this.inFlight.get(keyId) ?? 0;
  }
}
