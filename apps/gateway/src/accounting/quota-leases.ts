import type { Database } from "@tollgate/db";
import { resultRows } from "@tollgate/db/client";
import { sql } from "drizzle-orm";
import type { DatabaseCircuit } from "../database-circuit";
import { errors } from "../errors";
import { type ParsedSubject, parseSubject } from "./budget-view";

/**
 * What a lease is a slice of: `token:<id>` (a lifetime quota), `user:<id>` (a balance), `budget:<id>` (a
 * user's lifetime budget), `team:<id>` (a team's lifetime budget), or one period of a token's quota or a user's budget,
 * `token:<id>@<period start ms>@<period>@<zone>` (budget-view.ts). A period's slices count against that
 * period only, so a lease never spans a reset.
 */
export type LeaseSubject =
  | `token:${number}`
  | `user:${number}`
  | `budget:${number}`
  | `team:${number}`
  | `token:${number}@${string}`
  | `budget:${number}@${string}`
  | `team:${number}@${string}`;

/** This instance's lease row as a statement left it, with the database clock of that statement (microseconds). */
export interface LeaseRow {
  amount: number;
  at: number;
}

/** The database clock in microseconds, to order lease row values read by different connections. */
export const DATABASE_CLOCK_SQL = "(extract(epoch from clock_timestamp()) * 1000000)::bigint";

/**
 * The limit and what the database says is spent of a subject, its row locked (tokens before users, as every
 * transaction that locks both takes them). A period's spend counts only if the row is of that period and of
 * the same period setting; a row of another setting (changed since this instance cached it: a NOTIFY is on
 * its way) or of a later period leaves nothing to take.
 */
function limitQuery(subject: ParsedSubject) {
  const { id, period } = subject;
  if (subject.kind === "user") {
    return sql`select case when balance_unlimited then null else balance end as "limit", 0 as used from users where id = ${id} for update`;
  }
  const table = sql.raw(subject.kind === "token" ? "tokens" : subject.kind === "team" ? "teams" : "users");
  const limit = subject.kind === "token" ? sql.raw("quota_limit") : sql.raw("budget_limit");
  const lifetimeUsed = subject.kind === "token" ? sql.raw("used_quota") : sql.raw("used_total");
  if (!period) {
    return sql`select ${limit} as "limit", case when budget_period = 'none' then ${lifetimeUsed} else ${limit} end as used from ${table} where id = ${id} for update`;
  }
  const start = sql`${new Date(period.start).toISOString()}::timestamptz`;
  return sql`
    select ${limit} as "limit",
           case when budget_period <> ${period.period} or budget_time_zone <> ${period.timeZone} then ${limit}
                when period_start is null or period_start < ${start} then 0
                when period_start = ${start} then period_used
                else ${limit} end as used
    from ${table} where id = ${id} for update`;
}

interface Lease {
  /** Mirror of this instance's row in quota_leases: granted and not yet written back as spent. */
  granted: number;
  /** Holds of requests in flight. */
  reserved: number;
  /** Settled costs not yet written (still inside `granted` in the database). */
  pendingSpent: number;
  lastUsedAt: number;
  acquiring: Promise<boolean | typeof NEAR_END> | null;
  /**
   * When (database clock, microseconds) `granted` was last read from the database. The write-behind and an
   * acquisition can commit in one order and be seen here in the other: a row value older than this one
   * must not overwrite it.
   */
  syncedAt: number;
  /**
   * After a refused acquisition, further refusals of as much or more come from memory until then (no query
   * storm); a smaller request still asks, since it may fit what is left.
   */
  refusedUntil: number;
  refusedAmount: number;
  /**
   * After a roomy acquisition found the limit near its end, further roomy ones answer NEAR_END from memory
   * until then (spend only brings the end nearer), so that a call near the end costs one query, not two.
   */
  nearEndUntil: number;
}

export interface LeaseOptions {
  /** A lease whose instance has not heart-beaten for this long is ignored and removed by others. */
  ttlMs: number;
  heartbeatMs: number;
  /** Unspent slices unused for this long go back, so other instances can use them. */
  idleReturnMs: number;
  /** Share of the limit taken at once (more means fewer queries, coarser sharing between instances). */
  chunkFraction: number;
}

/** A roomy acquisition found the limit near its end (less than two slices left): nothing was taken. */
export const NEAR_END = "near-end";
const NEAR_END_GRANT = -2;
/** How long a subject found near its end is taken to be so without asking (slices other instances return can move it). */
const NEAR_END_MEMORY_MS = 10_000;

export const defaultLeaseOptions: LeaseOptions = { ttlMs: 60_000, heartbeatMs: 10_000, idleReturnMs: 10_000, chunkFraction: 0.05 };


/**
 * Quota and balance shared by many gateway instances without a query per request. Each instance spends only
 * from slices (leases) it took from the database in a locked transaction; together the slices never exceed
 * limit - used, so the instances cannot overspend together. The only excess is a request whose real cost
 * exceeds the worst case it reserved (a completion longer than its bound): it is billed in full and later
 * slices shrink by it.
 */
export class LeaseBook {
  private readonly leases = new Map<LeaseSubject, Lease>();

  constructor(
    private readonly db: Database,
    readonly instanceId: string,
    private readonly log: (message: string, fields?: Record<string, unknown>) => void,
    private readonly options: LeaseOptions = defaultLeaseOptions,
    /** Absent: every acquisition queries (tests of the lease arithmetic). */
    private readonly circuit: DatabaseCircuit | null = null,
  ) {}

  private lease(subject: LeaseSubject): Lease {
    let lease = this.leases.get(subject);
    if (!lease) {
      lease = { granted: 0, reserved: 0, pendingSpent: 0, lastUsedAt: Date.now(), acquiring: null, refusedUntil: 0, refusedAmount: 0, nearEndUntil: 0, syncedAt: 0 };
      this.leases.set(subject, lease);
    }
    return lease;
  }

  unspent(subject: LeaseSubject): number {
    const lease = this.leases.get(subject);
    return lease ? lease.granted - lease.reserved - lease.pendingSpent : 0;
  }

  /** Spend settled by this instance and not yet written to the database. */
  pendingSpent(subject: LeaseSubject): number {
    return this.leases.get(subject)?.pendingSpent ?? 0;
  }

  /** Amount held by requests in flight. */
  held(subject: LeaseSubject): number {
    return this.leases.get(subject)?.reserved ?? 0;
  }

  /** Holds `amount` from this instance's slice if it covers it (no I/O). */
  tryHold(subject: LeaseSubject, amount: number): boolean {
    const lease = this.lease(subject);
    if (lease.granted - lease.reserved - lease.pendingSpent < amount) return false;
    lease.reserved += amount;
    lease.lastUsedAt = Date.now();
    return true;
  }

  release(subject: LeaseSubject, amount: number): void {
    const lease = this.lease(subject);
    lease.reserved -= amount;
  }

  /** A held amount became a real cost (which may exceed what was held). */
  spend(subject: LeaseSubject, held: number, cost: number): void {
    const lease = this.lease(subject);
    lease.reserved -= held;
    lease.pendingSpent += cost;
    lease.lastUsedAt = Date.now();
  }

  /**
   * The write-behind committed `amount` of spend for `subject` and shrank the lease row by it; `row` is the
   * row as that commit left it, unless a later read (an acquisition that ran in between) is newer.
   */
  written(subject: LeaseSubject, amount: number, row?: LeaseRow): void {
    const lease = this.leases.get(subject);
    if (!lease) return;
    lease.pendingSpent -= amount;
    if (row === undefined) lease.granted = Math.max(0, lease.granted - amount);
    else this.sync(lease, row);
  }

  private sync(lease: Lease, row: LeaseRow): void {
    if (row.at < lease.syncedAt) return;
    lease.granted = row.amount;
    lease.syncedAt = row.at;
  }

  /** The limit or balance changed: refusals remembered from before no longer hold. */
  forgetRefusal(subject: LeaseSubject): void {
    const lease = this.leases.get(subject);
    if (lease) {
      lease.refusedUntil = 0;
      lease.nearEndUntil = 0;
    }
    // ...nor those of the subject's periods (`token:<id>@...`).
    const periods = `${subject}@`;
    for (const [other, otherLease] of this.leases) {
      if (!other.startsWith(periods)) continue;
      otherLease.refusedUntil = 0;
      otherLease.nearEndUntil = 0;
    }
  }

  /**
   * Takes a bigger slice so that `amount` can be held; concurrent callers share one acquisition. Resolves
   * false when limit - used - other instances' slices cannot cover it. Rejects with a 503 GatewayError
   * (database_unavailable, Retry-After) when the database cannot be asked: at once while the circuit is
   * open, otherwise after one retry of a lost connection.
   * `roomy`: take the slice only if at least as much again stays available after it; otherwise resolve
   * NEAR_END and take nothing, so that the caller can ask for a tighter amount (ledger: the fitted
   * estimate). A caller that joined another's roomy acquisition may get NEAR_END too: it asks again.
   */
  acquire(subject: LeaseSubject, amount: number, roomy = false): Promise<boolean | typeof NEAR_END> {
    const lease = this.lease(subject);
    if (roomy && lease.nearEndUntil > Date.now()) return Promise.resolve(NEAR_END);
    if (lease.refusedUntil > Date.now() && amount >= lease.refusedAmount) return Promise.resolve(false);
    lease.acquiring ??= this.acquireOrFail(subject, lease, amount, roomy).finally(() => {
      lease.acquiring = null;
    });
    return lease.acquiring;
  }

  private async acquireOrFail(subject: LeaseSubject, lease: Lease, amount: number, roomy: boolean): Promise<boolean | typeof NEAR_END> {
    try {
      const acquisition = () => this.acquireFromDatabase(subject, lease, amount, roomy);
      return await (this.circuit ? this.circuit.run(acquisition, [20]) : acquisition());
    } catch (error) {
      throw errors.databaseUnavailable(
        "The gateway cannot reserve quota for this request right now: its database is unreachable. Retry shortly.",
        error,
      );
    }
  }

  private async acquireFromDatabase(subject: LeaseSubject, lease: Lease, amount: number, roomy: boolean): Promise<boolean | typeof NEAR_END> {
    const parsed = parseSubject(subject);
    // Row values seen inside the transaction, mirrored only once it has committed.
    const observed: LeaseRow[] = [];
    const granted = await this.db.transaction(async (transaction) => {
      const limitRow = resultRows(await transaction.execute(limitQuery(parsed)))[0];
      if (!limitRow) return 0;
      if (limitRow.limit === null || limitRow.limit === undefined) return Number.POSITIVE_INFINITY;
      await transaction.execute(
        sql`delete from quota_leases where subject = ${subject} and heartbeat_at < now() - make_interval(secs => ${this.options.ttlMs / 1000})`,
      );
      const held = resultRows(
        await transaction.execute(sql`
          select coalesce(sum(amount) filter (where instance_id <> ${this.instanceId}), 0) as others,
                 coalesce(sum(amount) filter (where instance_id = ${this.instanceId}), 0) as mine,
                 ${sql.raw(DATABASE_CLOCK_SQL)} as at
          from quota_leases where subject = ${subject}`),
      )[0] ?? { others: 0, mine: 0, at: 0 };
      const limit = Number(limitRow.limit);
      const available = limit - Number(limitRow.used) - Number(held.others) - Number(held.mine);
      // What is missing for this request, from what this instance's slice has left.
      const missing = amount - (Number(held.mine) - lease.reserved - lease.pendingSpent);
      // The row is the truth for this instance's slice (the token row's lock orders this read after any
      // write-behind commit): keep the mirror in step with it even when nothing is taken.
      observed.push({ amount: Number(held.mine), at: Number(held.at) });
      if (missing <= 0) return 0;
      if (available < missing) return -1;
      const chunk = Math.min(available, Math.max(missing, Math.ceil(limit * this.options.chunkFraction)));
      if (roomy && available - chunk < chunk) return NEAR_END_GRANT;
      const [row] = resultRows(
        await transaction.execute(sql`
          insert into quota_leases (subject, instance_id, amount, heartbeat_at)
          values (${subject}, ${this.instanceId}, ${chunk}, now())
          on conflict (subject, instance_id) do update set amount = quota_leases.amount + excluded.amount, heartbeat_at = now()
          returning amount, ${sql.raw(DATABASE_CLOCK_SQL)} as at`),
      );
      observed.push({ amount: Number(row?.amount ?? Number(held.mine) + chunk), at: Number(row?.at ?? held.at) });
      return chunk;
    });
    for (const row of observed) this.sync(lease, row);
    if (granted === NEAR_END_GRANT) {
      lease.nearEndUntil = Date.now() + NEAR_END_MEMORY_MS;
      return NEAR_END;
    }
    if (granted === -1) {
      lease.refusedUntil = Date.now() + 1000;
      lease.refusedAmount = amount;
      return false;
    }
    if (granted === Number.POSITIVE_INFINITY) {
      // Unlimited after all (changed since it was cached): nothing to lease.
      lease.granted = Number.MAX_SAFE_INTEGER / 4;
    }
    return lease.granted - lease.reserved - lease.pendingSpent >= amount;
  }

  /** The periodic renewal (every `heartbeatMs`, run by the gateway's jobs): a heartbeat that tells the circuit how it went. */
  renew(): void {
    // While the database is known to be away the probe watches it; a heartbeat would only wait and fail.
    if (this.circuit?.isOpen) return;
    this.heartbeat().then(
      () => this.circuit?.succeeded(),
      (error) => {
        this.circuit?.failed(error);
        this.log("lease heartbeat failed", { error: String(error) });
      },
    );
  }

  /** How often renew() should run. */
  get renewIntervalMs(): number {
    return this.options.heartbeatMs;
  }

  /** Keeps this instance's slices alive, notices slices others took back, returns idle ones. */
  async heartbeat(now = Date.now()): Promise<void> {
    if (this.leases.size === 0) return;
    const alive = resultRows(
      await this.db.execute(sql`update quota_leases set heartbeat_at = now() where instance_id = ${this.instanceId} returning subject, amount`),
    );
    const present = new Map(alive.map((row) => [String(row.subject) as LeaseSubject, Number(row.amount)]));
    for (const [subject, lease] of this.leases) {
      if (!present.has(subject)) lease.granted = 0;
      const unspent = lease.granted - lease.reserved - lease.pendingSpent;
      if (unspent > 0 && lease.reserved === 0 && now - lease.lastUsedAt > this.options.idleReturnMs) {
        const [row] = resultRows(
          await this.db.execute(sql`
            update quota_leases set amount = greatest(0, amount - ${unspent})
            where subject = ${subject} and instance_id = ${this.instanceId}
            returning amount, ${sql.raw(DATABASE_CLOCK_SQL)} as at`),
        );
        if (row) this.sync(lease, { amount: Number(row.amount), at: Number(row.at) });
        else lease.granted = 0;
      }
      if (lease.granted === 0 && lease.reserved === 0 && lease.pendingSpent === 0) this.leases.delete(subject);
    }
    // Rows of slices given back whole and forgotten here (a past period's, among others) need not stay.
    const kept = [...this.leases.keys()].map((subject) => sql`${subject}`);
    await this.db.execute(sql`
      delete from quota_leases where instance_id = ${this.instanceId} and amount = 0
        ${kept.length > 0 ? sql`and subject not in (${sql.join(kept, sql`, `)})` : sql``}`);
  }

  /** After the last write-behind: hands every slice back. */
  async stop(): Promise<void> {
    await this.db.execute(sql`delete from quota_leases where instance_id = ${this.instanceId}`).catch((error) =>
      this.log("could not return quota leases", { error: String(error) }),
    );
    this.leases.clear();
  }
}
