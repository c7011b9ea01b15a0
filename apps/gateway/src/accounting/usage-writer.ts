import { type Database, type requestLogs, resultRows, usageHourly } from "@tollgate/db";
import { type SQL, sql } from "drizzle-orm";
import { insertRequestLogs } from "./insert-request-logs";
import { DATABASE_CLOCK_SQL, type LeaseRow, type LeaseSubject } from "./quota-leases";

export type RequestLogRow = typeof requestLogs.$inferInsert;

/** What one finished request leaves to write: its log row and what it cost whom. */
export interface UsageRecord {
  log: RequestLogRow;
  tokenId: number;
  userId: number;
  cost: number;
}

export interface UsageWriterOptions {
  intervalMs: number;
  /** Log rows kept while the database is unreachable; spend deltas are aggregated and never dropped. */
  maxBufferedLogs: number;
  /** Called after a commit with the new database values, so caches and the ledger move together. */
  onWritten: (written: {
    tokenDeltas: Map<number, number>;
    userDeltas: Map<number, number>;
    tokenTotals: Map<number, number>;
    userBalances: Map<number, number>;
    /** This instance's lease rows as the commit left them. */
    leaseRows: Map<LeaseSubject, LeaseRow>;
  }) => void;
  log: (message: string, fields?: Record<string, unknown>) => void;
  /** This process's id in quota_leases: spend written back shrinks its leases in the same transaction. */
  instanceId: string;
  /** Request-log rows per INSERT statement. */
  rowsPerInsert?: number;
  /** Yield to the event loop between INSERTs (embedded PGlite executes on the request thread). */
  yieldBetweenInserts?: boolean;
}

/** What requests and the process see of the write-behind, whichever thread runs it. */
export interface UsageSink {
  record(record: UsageRecord): void;
  /** Writes everything recorded before the call; rejects if the database refused it (it stays buffered). */
  flush(): Promise<void>;
  start(): void;
  /** Stops the timer and writes what is left, retrying for up to `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  /** Request logs recorded and not yet committed. */
  readonly queueDepth: number;
  /** Request logs dropped because the buffer was full during an outage (spend is never dropped). */
  readonly droppedLogs: number;
}

export type WrittenUsage = Parameters<UsageWriterOptions["onWritten"]>[0];

const ROWS_PER_INSERT = 5000;
const HOUR_MS = 3_600_000;

type RollupRow = typeof usageHourly.$inferInsert;

/** Sums log rows per (hour, user, token, model, channel) for the usage_hourly upsert. */
export function rollUp(logs: readonly RequestLogRow[]): RollupRow[] {
  const groups = new Map<string, RollupRow>();
  for (const log of logs) {
    if (log.userId == null || log.tokenId == null) continue;
    const created = (log.createdAt ?? new Date()).getTime();
    const hour = created - (created % HOUR_MS);
    const channelId = log.channelId ?? 0;
    const key = `${hour}|${log.userId}|${log.tokenId}|${log.model}|${channelId}`;
    let row = groups.get(key);
    if (!row) {
      row = { hour: new Date(hour), userId: log.userId, tokenId: log.tokenId, model: log.model, channelId, requests: 0, errors: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, cost: 0 };
      groups.set(key, row);
    }
    row.requests! += 1;
    if (log.status >= 400) row.errors! += 1;
    row.promptTokens! += log.promptTokens ?? 0;
    row.completionTokens! += log.completionTokens ?? 0;
    row.cachedTokens! += log.cachedTokens ?? 0;
    row.cost! += log.cost ?? 0;
  }
  return [...groups.values()];
}


function valuesList(deltas: Map<number, number>): SQL {
  return sql.join(
    [...deltas].map(([id, amount]) => sql`(${id}::bigint, ${amount}::bigint)`),
    sql`, `,
  );
}

/**
 * Write-behind of request logs, token spend and user balances: requests only append to memory; a timer
 * writes everything in one transaction per batch. On failure nothing is lost: the batch is put back and
 * retried with back-off. stop() writes what is left (SIGTERM/SIGINT).
 */
export class UsageWriter implements UsageSink {
  private logs: RequestLogRow[] = [];
  private tokenDeltas = new Map<number, number>();
  private userDeltas = new Map<number, number>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> | null = null;
  private failures = 0;
  private writingLogs = 0;
  droppedLogs = 0;
  writtenLogs = 0;

  constructor(
    private readonly db: Database,
    private readonly options: UsageWriterOptions,
  ) {}

  record(record: UsageRecord): void {
    if (this.logs.length >= this.options.maxBufferedLogs) {
      this.logs.shift();
      this.droppedLogs++;
      if (this.droppedLogs === 1 || this.droppedLogs % 1000 === 0) {
        this.options.log("usage buffer full: oldest request logs dropped (spend is kept)", { dropped: this.droppedLogs });
      }
    }
    this.logs.push(record.log);
    if (record.cost !== 0) {
      this.tokenDeltas.set(record.tokenId, (this.tokenDeltas.get(record.tokenId) ?? 0) + record.cost);
      this.userDeltas.set(record.userId, (this.userDeltas.get(record.userId) ?? 0) + record.cost);
    }
  }

  /** Request logs not yet committed: buffered, plus the batch being written. */
  get queueDepth(): number {
    return this.logs.length + this.writingLogs;
  }

  start(): void {
    this.schedule(this.options.intervalMs);
  }

  /**
   * Writes everything recorded before this call. A write already under way may have started before the
   * latest records, so it is awaited first and a new one started for what is left.
   */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing.catch(() => {});
    if (!this.hasWork()) return;
    this.flushing = this.writeBatch().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  /** Stops the timer and writes what is left, retrying for up to `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const deadline = Date.now() + graceMs;
    // A write under way holds records that are no longer in the buffers: it is awaited too, so that the
    // database is never closed (or the thread ended) in the middle of its transaction.
    while (this.hasWork() || this.flushing) {
      try {
        await this.flush();
      } catch {
        if (Date.now() > deadline) {
          this.options.log("usage could not be written before shutdown", { logs: this.logs.length });
          return;
        }
        await Bun.sleep(200);
      }
    }
  }

  private hasWork(): boolean {
    return this.logs.length > 0 || this.tokenDeltas.size > 0 || this.userDeltas.size > 0;
  }

  private schedule(delay: number): void {
    this.timer = setTimeout(async () => {
      try {
        if (this.hasWork()) await this.flush();
        this.failures = 0;
      } catch (error) {
        this.failures++;
        this.options.log("usage write failed; will retry", { error: String(error), attempt: this.failures });
      }
      if (this.timer) {
        const backoff = Math.min(30_000, this.options.intervalMs * 2 ** Math.min(this.failures, 5));
        this.schedule(this.failures > 0 ? backoff : this.options.intervalMs);
      }
    }, delay);
    this.timer.unref?.();
  }

  private async writeBatch(): Promise<void> {
    if (!this.hasWork()) return;
    const logs = this.logs;
    const tokenDeltas = this.tokenDeltas;
    const userDeltas = this.userDeltas;
    this.logs = [];
    this.tokenDeltas = new Map();
    this.userDeltas = new Map();
    this.writingLogs = logs.length;
    const tokenTotals = new Map<number, number>();
    const userBalances = new Map<number, number>();
    const leaseRows = new Map<LeaseSubject, LeaseRow>();
    try {
      await this.db.transaction(async (transaction) => {
        const rowsPerInsert = this.options.rowsPerInsert ?? ROWS_PER_INSERT;
        for (let index = 0; index < logs.length; index += rowsPerInsert) {
          await transaction.execute(insertRequestLogs(logs.slice(index, index + rowsPerInsert)));
          // An embedded database runs each statement on this thread: let requests through between slices.
          if (this.options.yieldBetweenInserts && index + rowsPerInsert < logs.length) await new Promise(setImmediate);
        }
        const rollups = rollUp(logs);
        for (let index = 0; index < rollups.length; index += ROWS_PER_INSERT) {
          await transaction
            .insert(usageHourly)
            .values(rollups.slice(index, index + ROWS_PER_INSERT))
            .onConflictDoUpdate({
              target: [usageHourly.hour, usageHourly.userId, usageHourly.tokenId, usageHourly.model, usageHourly.channelId],
              set: {
                requests: sql`${usageHourly.requests} + excluded.requests`,
                errors: sql`${usageHourly.errors} + excluded.errors`,
                promptTokens: sql`${usageHourly.promptTokens} + excluded.prompt_tokens`,
                completionTokens: sql`${usageHourly.completionTokens} + excluded.completion_tokens`,
                cachedTokens: sql`${usageHourly.cachedTokens} + excluded.cached_tokens`,
                cost: sql`${usageHourly.cost} + excluded.cost`,
              },
            });
        }
        if (tokenDeltas.size > 0) {
          const result = await transaction.execute(sql`
            update tokens set used_quota = tokens.used_quota + d.amount, last_used_at = now()
            from (values ${valuesList(tokenDeltas)}) as d(id, amount)
            where tokens.id = d.id
            returning tokens.id, tokens.used_quota`);
          for (const row of resultRows(result)) tokenTotals.set(Number(row.id), Number(row.used_quota));
        }
        if (userDeltas.size > 0) {
          const result = await transaction.execute(sql`
            update users set balance = users.balance - d.amount
            from (values ${valuesList(userDeltas)}) as d(id, amount)
            where users.id = d.id
            returning users.id, users.balance`);
          for (const row of resultRows(result)) userBalances.set(Number(row.id), Number(row.balance));
        }
        const leaseDeltas = [
          ...[...tokenDeltas].map(([id, amount]) => sql`(${`token:${id}`}, ${amount}::bigint)`),
          ...[...userDeltas].map(([id, amount]) => sql`(${`user:${id}`}, ${amount}::bigint)`),
        ];
        // Last, after tokens and users: every transaction that locks these rows takes them in that order.
        if (leaseDeltas.length > 0) {
          const result = await transaction.execute(sql`
            update quota_leases set amount = greatest(0, quota_leases.amount - d.amount)
            from (values ${sql.join(leaseDeltas, sql`, `)}) as d(subject, amount)
            where quota_leases.subject = d.subject and quota_leases.instance_id = ${this.options.instanceId}
            returning quota_leases.subject, quota_leases.amount, ${sql.raw(DATABASE_CLOCK_SQL)} as at`);
          for (const row of resultRows(result)) leaseRows.set(String(row.subject) as LeaseSubject, { amount: Number(row.amount), at: Number(row.at) });
        }
      });
    } catch (error) {
      this.writingLogs = 0;
      this.putBack(logs, tokenDeltas, userDeltas);
      throw error;
    }
    this.writingLogs = 0;
    this.writtenLogs += logs.length;
    this.options.onWritten({ tokenDeltas, userDeltas, tokenTotals, userBalances, leaseRows });
  }

  private putBack(logs: RequestLogRow[], tokenDeltas: Map<number, number>, userDeltas: Map<number, number>): void {
    this.logs = logs.concat(this.logs);
    const overflow = this.logs.length - this.options.maxBufferedLogs;
    if (overflow > 0) {
      this.logs.splice(0, overflow);
      this.droppedLogs += overflow;
    }
    for (const [id, amount] of tokenDeltas) this.tokenDeltas.set(id, (this.tokenDeltas.get(id) ?? 0) + amount);
    for (const [id, amount] of userDeltas) this.userDeltas.set(id, (this.userDeltas.get(id) ?? 0) + amount);
  }
}
