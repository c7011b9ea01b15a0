/** A thread (a Bun Worker, or a MessagePort) that keeps the process alive only while it is ref'd. */
export interface Referenced {
  ref?(): void;
  unref?(): void;
}

/**
 * Answers owed by another thread, matched by request id. The thread is ref'd while any answer is owed and
 * unref'd once none is: a process does not stay alive for an idle worker, and does not exit while it waits
 * for one. If the thread dies, `rejectAll` fails every waiter at once instead of leaving them hanging.
 */
export class PendingReplies<T> {
  private nextId = 1;
  private readonly waiters = new Map<number, { resolve: (value: T) => void; reject: (error: Error) => void }>();

  constructor(private readonly thread: Referenced) {}

  get size(): number {
    return this.waiters.size;
  }

  /**
   * Registers a waiter under a new id, then calls `send` with that id to post the request. If `send` throws
   * (a message that cannot be cloned), the promise rejects with that error and nothing is left waiting.
   */
  expect(send: (id: number) => void): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      if (this.waiters.size === 0) this.thread.ref?.();
      this.waiters.set(id, { resolve, reject });
      try {
        send(id);
      } catch (error) {
        this.settle(id, { error: error instanceof Error ? error : new Error(String(error)) });
      }
    });
  }

  /** Settles the waiter of `id` (an unknown id is ignored: its waiter was already failed). */
  settle(id: number, outcome: { value: T } | { error: Error }): void {
    const waiter = this.waiters.get(id);
    if (!waiter) return;
    this.waiters.delete(id);
    if (this.waiters.size === 0) this.thread.unref?.();
    if ("error" in outcome) waiter.reject(outcome.error);
    else waiter.resolve(outcome.value);
  }

  rejectAll(error: Error): void {
    const waiters = [...this.waiters.values()];
    this.waiters.clear();
    this.thread.unref?.();
    for (const waiter of waiters) waiter.reject(error);
  }
}
