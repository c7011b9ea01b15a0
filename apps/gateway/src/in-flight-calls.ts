/**
 * Counts /v1 calls between their start and their accounting (CallContext.finish), so that a shutdown can
 * wait until the calls it cut (streams past the drain limit) have been billed before the write-behind stops.
 */
export class InFlightCalls {
  private count = 0;
  private waiters: Array<() => void> = [];

  get size(): number {
    return this.count;
  }

  started(): void {
    this.count++;
  }

  finished(): void {
    this.count = Math.max(0, this.count - 1);
    if (this.count === 0 && this.waiters.length > 0) {
      for (const wake of this.waiters.splice(0)) wake();
    }
  }

  /** Resolves true once no call is in flight, or false after `timeoutMs`. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== wake);
        resolve(false);
      }, timeoutMs);
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.waiters.push(wake);
    });
  }
}
