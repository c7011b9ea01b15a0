interface Inflight<Value> {
  promise: Promise<Value | null>;
  /** Set when the key was evicted or changed while loading: the result may predate that, so it is not stored. */
  stale: boolean;
  /** Set when a row was inserted under the key while loading: a null result may predate it, a row cannot. */
  absentIsStale: boolean;
  /** A background re-read of a cached value (its max age passed). */
  revalidation: boolean;
}

interface Entry<Value> {
  value: Value;
  /**
   * Epoch ms. The value is served on, and re-read in the background by the first get() after it: so a change
   * whose notification never arrived is seen within max age + one request.
   */
  expiresAt: number;
}

/**
 * A read-through cache whose misses load once however many requests wait on them. A load that was under
 * way when its key was evicted or changed is not stored (it may have read the row before the change);
 * evictions of other keys do not disturb it. Negative results (null) are kept for `negativeTtlMs` apart from
 * the values, in a map of their own bounded by `maxAbsentEntries`: an unknown key asked again costs no query,
 * and a flood of unknown keys pushes out older absences only, never a value in use.
 *
 * Values older than `maxAgeMs` are re-validated, stale-while-revalidate: the request that finds one is
 * answered from memory and starts one background reload, which replaces the value (with null if the row is
 * gone). A warm request never waits on the database, and a database outage keeps the cached values in
 * service; the age bounds how long a lost notification (a stalled LISTEN connection) can keep a revoked
 * value alive.
 */
export class LoadingCache<Key, Value> {
  private readonly entries = new Map<Key, Entry<Value>>();
  /** Keys known to have no row, with the epoch ms at which that is forgotten; insertion order is age. */
  private readonly absent = new Map<Key, number>();
  private readonly inflight = new Map<Key, Inflight<Value>>();
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  hits = 0;
  misses = 0;
  evictions = 0;
  /** Background reloads started because a value reached its max age. */
  revalidations = 0;

  constructor(
    private readonly load: (key: Key) => Promise<Value | null>,
    private readonly options: {
      maxEntries: number;
      negativeTtlMs: number;
      /** Absences kept at once (oldest dropped first). Default: maxEntries. */
      maxAbsentEntries?: number;
      /** Age after which a cached value is re-read in the background; absent: never (only notifications evict). */
      maxAgeMs?: number;
      /** Epoch ms; the gateway passes a CoarseClock's, so that a warm get() reads no system clock. */
      now?: () => number;
      /** Sees every value loaded from the database (to keep side indexes, e.g. id -> key hash). */
      onLoaded?: (key: Key, value: Value) => void;
    },
  ) {
    this.maxAgeMs = options.maxAgeMs ?? Number.POSITIVE_INFINITY;
    this.now = options.now ?? Date.now;
  }

  /** The cached value without loading; undefined on a miss. */
  peek(key: Key): Value | null | undefined {
    const entry = this.entries.get(key);
    if (entry) return entry.value;
    return this.absentUntil(key) === undefined ? undefined : null;
  }

  /** The warm path: one map lookup and one compare with the clock's value. */
  get(key: Key): Value | null | Promise<Value | null> {
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      this.hits++;
      if (entry.expiresAt <= this.now()) this.revalidate(key, entry);
      return entry.value;
    }
    if (this.absent.size > 0 && this.absentUntil(key) !== undefined) {
      this.hits++;
      return null;
    }
    this.misses++;
    return this.inflight.get(key)?.promise ?? this.startLoad(key);
  }

  /**
   * Reloads in the background, keeping the current value until the new one arrives. A failed reload (the
   * database is away) keeps serving the cached value: refreshes only carry spend counters, never a revocation.
   */
  refresh(key: Key): void {
    if (!this.entries.has(key)) return;
    this.markStale(key);
    this.startLoad(key).catch(() => {});
  }

  /**
   * A row was just inserted under `key`. Only a cached absence can be stale: a negative entry is dropped, and a
   * load under way (which may have read before the insert) keeps a row it finds but does not store a null. A
   * cached value was loaded from that very row, so it stays: evicting it would throw away a key in use, and
   * leave it unverifiable if the database is away at that moment.
   */
  forgetAbsent(key: Key): void {
    const pending = this.inflight.get(key);
    if (pending) pending.absentIsStale = true;
    if (this.absent.delete(key)) this.evictions++;
  }

  delete(key: Key): void {
    this.markStale(key);
    this.inflight.delete(key);
    if (this.entries.delete(key)) this.evictions++;
    if (this.absent.delete(key)) this.evictions++;
  }

  clear(): void {
    for (const pending of this.inflight.values()) pending.stale = true;
    this.inflight.clear();
    this.evictions += this.entries.size + this.absent.size;
    this.entries.clear();
    this.absent.clear();
  }

  /**
   * Changes a cached value in place (a counter this process just wrote). A load in flight for the key may
   * have read the row before that write, so its result is not stored.
   */
  update(key: Key, change: (value: Value) => void): void {
    this.markStale(key);
    const entry = this.entries.get(key);
    if (entry?.value) change(entry.value);
  }

  /** Values cached (absences are counted apart, in absentSize). */
  get size(): number {
    return this.entries.size;
  }

  get absentSize(): number {
    return this.absent.size;
  }

  /** The epoch ms at which the key's cached absence ends; undefined when none is cached (an expired one is dropped). */
  private absentUntil(key: Key): number | undefined {
    const until = this.absent.get(key);
    if (until === undefined) return undefined;
    if (until > this.now()) return until;
    this.absent.delete(key);
    return undefined;
  }

  private markStale(key: Key): void {
    const pending = this.inflight.get(key);
    if (pending) pending.stale = true;
  }

  /**
   * Serves `entry` on and re-reads it in the background. Not again for another max age whatever the reload's
   * fate: a failed one (the database is away) keeps the value, as the documented outage behaviour wants.
   */
  private revalidate(key: Key, entry: Entry<Value>): void {
    entry.expiresAt = this.now() + this.maxAgeMs;
    if (this.inflight.has(key)) return;
    this.revalidations++;
    this.startLoad(key, true).catch(() => {});
  }

  private startLoad(key: Key, revalidation = false): Promise<Value | null> {
    const pending: Inflight<Value> = { promise: Promise.resolve(null), stale: false, absentIsStale: false, revalidation };
    pending.promise = this.load(key).then(
      (value) => {
        if (this.inflight.get(key) === pending) this.inflight.delete(key);
        if (value !== null) this.options.onLoaded?.(key, value);
        if (!pending.stale && !(pending.absentIsStale && value === null)) this.store(key, value);
        else if (pending.revalidation) {
          // Discarded (a counter write or an insert raced it): the value is still unchecked, so the next
          // request tries again.
          const entry = this.entries.get(key);
          if (entry) entry.expiresAt = 0;
        }
        return value;
      },
      (error) => {
        if (this.inflight.get(key) === pending) this.inflight.delete(key);
        throw error;
      },
    );
    this.inflight.set(key, pending);
    return pending.promise;
  }

  private store(key: Key, value: Value | null): void {
    if (value === null) {
      // A row gone on re-validation leaves no value behind.
      if (this.entries.delete(key)) this.evictions++;
      // Re-inserted, so that the map's order stays the absences' age.
      this.absent.delete(key);
      if (this.absent.size >= (this.options.maxAbsentEntries ?? this.options.maxEntries)) {
        this.absent.delete(this.absent.keys().next().value as Key);
        this.evictions++;
      }
      this.absent.set(key, this.now() + this.options.negativeTtlMs);
      return;
    }
    this.absent.delete(key);
    if (this.entries.size >= this.options.maxEntries && !this.entries.has(key)) {
      // Maps iterate in insertion order: dropping the first entry drops the oldest.
      const oldest = this.entries.keys().next().value as Key;
      this.entries.delete(oldest);
      this.evictions++;
    }
    this.entries.set(key, { value, expiresAt: this.now() + this.maxAgeMs });
  }
}
