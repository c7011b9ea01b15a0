import { retryRead } from "./retry-read";

/**
 * A small table (or a few) loaded whole, kept in memory, and replaced whole: the channel catalog and the
 * settings. invalidate() (a NOTIFY said it changed) drops it, and the next get() waits on a new load rather
 * than serve a stale picture; refresh() re-reads it in the background (its max age passed) while the current
 * one stays in service, so that a lost notification is seen anyway.
 *
 * A load that was under way when a change was notified may have read the rows as they were: its result is
 * handed to whoever waited on it, but not kept (the generation guard), so the next get() loads again.
 */
export class ReloadableSnapshot<Value> {
  private current: Value | null = null;
  private loading: Promise<Value> | null = null;
  /** Bumped by invalidate(): a load started under an older generation is not kept. */
  private generation = 0;

  constructor(
    private readonly load: () => Promise<Value>,
    /** A background refresh failed: the current value stays in service. */
    private readonly onRefreshFailed: (error: unknown) => void = () => {},
  ) {}

  /** The value, or the load every caller waits on (one load however many wait). */
  get(): Value | Promise<Value> {
    return this.current ?? this.loading ?? this.reload();
  }

  invalidate(): void {
    this.current = null;
    this.generation++;
    this.loading = null;
  }

  /** A background reload that replaces the value unless a change was notified meanwhile; a failure keeps it. */
  refresh(): Promise<void> {
    if (!this.current || this.loading) return Promise.resolve();
    return this.reload().then(() => {}, this.onRefreshFailed);
  }

  get isLoaded(): boolean {
    return this.current !== null;
  }

  private reload(): Promise<Value> {
    const startedAt = this.generation;
    const promise = retryRead(this.load).then(
      (loaded) => {
        if (this.loading === promise) this.loading = null;
        if (this.generation === startedAt) this.current = loaded;
        return loaded;
      },
      (error) => {
        if (this.loading === promise) this.loading = null;
        throw error;
      },
    );
    this.loading = promise;
    return promise;
  }
}
