/**
 * A read-through cache whose misses load once however many requests wait on them. Eviction bumps a
 * generation so that a load that started before an eviction is not stored (it may have read stale rows).
 * Negative results (null) are kept for `negativeTtlMs`, so a flood of unknown keys cannot reach the database.
 */
export class LoadingCache<Key, Value> {
  private readonly entries = new Map<Key, { value: Value | null; expiresAt: number }>();
  private readonly inflight = new Map<Key, Promise<Value | null>>();
  private generation = 0;
  hits = 0;
  misses = 0;
  evictions = 0;

  constructor(
    private readonly load: (key: Key) => Promise<Value | null>,
    private readonly options: {
      maxEntries: number;
      negativeTtlMs: number;
      /** Sees every value loaded from the database (to keep side indexes, e.g. id -> key hash). */
      onLoaded?: (key: Key, value: Value) => void;
    },
  ) {}

  /** The cached value without loading; undefined on a miss. */
  peek(key: Key): Value | null | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.value === null && entry.expiresAt < Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  get(key: Key): Value | null | Promise<Value | null> {
    const cached = this.peek(key);
    if (cached !== undefined) {
      this.hits++;
      return cached;
    }
    this.misses++;
    return this.loadShared(key);
  }

  /** Reloads in the background, keeping the current value until the new one arrives. */
  refresh(key: Key): void {
    if (!this.entries.has(key)) return;
    this.startLoad(key).catch(() => this.delete(key));
  }

  delete(key: Key): void {
    this.generation++;
    if (this.entries.delete(key)) this.evictions++;
    this.inflight.delete(key);
  }

  clear(): void {
    this.generation++;
    this.evictions += this.entries.size;
    this.entries.clear();
    this.inflight.clear();
  }

  /**
   * Changes a cached value in place (a counter this process just wrote). Loads in flight may have read
   * the row before that write, so they are not stored.
   */
  update(key: Key, change: (value: Value) => void): void {
    this.generation++;
    const entry = this.entries.get(key);
    if (entry?.value) change(entry.value);
  }

  values(): IterableIterator<{ value: Value | null }> {
    return this.entries.values();
  }

  get size(): number {
    return this.entries.size;
  }

  private loadShared(key: Key): Promise<Value | null> {
    return this.inflight.get(key) ?? this.startLoad(key);
  }

  private startLoad(key: Key): Promise<Value | null> {
    const startedAt = this.generation;
    const promise = this.load(key).then(
      (value) => {
        if (this.inflight.get(key) === promise) this.inflight.delete(key);
        if (value !== null) this.options.onLoaded?.(key, value);
        if (this.generation === startedAt) this.store(key, value);
        return value;
      },
      (error) => {
        if (this.inflight.get(key) === promise) this.inflight.delete(key);
        throw error;
      },
    );
    this.inflight.set(key, promise);
    return promise;
  }

  private store(key: Key, value: Value | null): void {
    if (this.entries.size >= this.options.maxEntries && !this.entries.has(key)) {
      // Maps iterate in insertion order: dropping the first entry drops the oldest.
      const oldest = this.entries.keys().next().value as Key;
      this.entries.delete(oldest);
      this.evictions++;
    }
    this.entries.set(key, { value, expiresAt: value === null ? Date.now() + this.options.negativeTtlMs : Infinity });
  }
}
