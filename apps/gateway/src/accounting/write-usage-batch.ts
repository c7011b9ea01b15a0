import type { Database, requestLogs } from "@tollgate/db";
import { resultRows } from "@tollgate/db/client";
import { errorCauses } from "@tollgate/db/database-errors";
import { usageHourly } from "@tollgate/db/schema";
import { type SQL, sql } from "drizzle-orm";
import type { BudgetObservation } from "./budget-observation";
import { insertRequestLogs } from "./insert-request-logs";
import { DATABASE_CLOCK_SQL, type LeaseRow, type LeaseSubject } from "./quota-leases";
import { sanitizeLogRow } from "./sanitize-log-row";
import { applyPeriodDeltas, lifetimeObservation, type PeriodTotals, teamDeltasOf } from "./write-period-spend";

export type { PeriodTotals } from "./write-period-spend";

export type RequestLogRow = typeof requestLogs.$inferInsert;

/** Adds a call's cost to each period or budget subject it counts in. */
export function addSubjectDeltas(deltas: Map<LeaseSubject, number>, subjects: readonly LeaseSubject[] | undefined, cost: number): void {
  if (!subjects) return;
  for (const subject of subjects) deltas.set(subject, (deltas.get(subject) ?? 0) + cost);
}

/** What one batch moves into the database: log rows, spend per token and user, and the spool mark. */
export interface UsageBatch {
  logs: RequestLogRow[];
  tokenDeltas: Map<number, number>;
  userDeltas: Map<number, number>;
  /** Spend per period or budget subject (absent in batches written before budgets existed). */
  subjectDeltas?: Map<LeaseSubject, number>;
  /** Tokens called with the secret a roll replaced: their previous_key_last_used_at moves to now. */
  previousKeyUses?: ReadonlySet<number>;
  /** Highest spool sequence number the batch covers; the spool's checkpoint moves to it. */
  lastSeq: number;
}

/** The database's values after a commit, so that caches and the quota ledger move with it. */
export interface WrittenUsage {
  tokenDeltas: Map<number, number>;
  userDeltas: Map<number, number>;
  tokenTotals: Map<number, number>;
  userBalances: Map<number, number>;
  subjectDeltas: Map<LeaseSubject, number>;
  /** Rows' period spend after the commit, for the caches. */
  tokenPeriods: Map<number, PeriodTotals>;
  userPeriods: Map<number, PeriodTotals>;
  userTotals: Map<number, number>;
  /** Teams' lifetime and period spend after the commit (absent from writers older than teams). */
  teamTotals?: Map<number, number>;
  teamPeriods?: Map<number, PeriodTotals>;
  /** Budgets whose spend moved, as the commit left them: what spend alerts are decided from. */
  observations: BudgetObservation[];
  /** The writing instance's lease rows as the commit left them. */
  leaseRows: Map<LeaseSubject, LeaseRow>;
  /** The spool checkpoint after the commit. */
  spoolSeq: number;
  /** Request-log rows set aside in request_log_dead_letters by this commit. */
  deadLetters: number;
  /** False when the batch had been committed already (an earlier attempt whose answer was lost). */
  applied: boolean;
}

export interface WriteUsageOptions {
  /** The spool (and quota_leases instance) the records came from. */
  spoolId: string;
  /** Request-log rows per INSERT statement. */
  rowsPerInsert: number;
  /** Yield to the event loop between INSERTs (embedded PGlite executing on the request thread). */
  yieldBetweenInserts?: boolean;
  log: (message: string, fields?: Record<string, unknown>) => void;
}


const ROLLUP_ROWS_PER_INSERT = 5000;
const HOUR_MS = 3_600_000;

type RollupRow = typeof usageHourly.$inferInsert;
type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

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
      row = { hour: new Date(hour), userId: log.userId, tokenId: log.tokenId, model: log.model, channelId, requests: 0, errors: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, cost: 0, cacheSavings: 0, latencyMsSum: 0, latencyCount: 0 };
      groups.set(key, row);
    }
    row.requests! += 1;
    if (log.status >= 400) row.errors! += 1;
    row.promptTokens! += log.promptTokens ?? 0;
    row.completionTokens! += log.completionTokens ?? 0;
    row.cachedTokens! += log.cachedTokens ?? 0;
    row.cacheWriteTokens! += log.cacheWriteTokens ?? 0;
    row.cacheWrite1hTokens! += log.cacheWrite1hTokens ?? 0;
    row.cost! += log.cost ?? 0;
    row.cacheSavings! += log.cacheSavings ?? 0;
    if (typeof log.latencyMs === "number" && Number.isFinite(log.latencyMs) && log.latencyMs >= 0) {
      row.latencyMsSum! += Math.round(log.latencyMs);
      row.latencyCount! += 1;
    }
  }
  return [...groups.values()];
}

/**
 * SQLSTATE classes of errors that a row's own values cause (22 data exception: an invalid byte sequence,
 * a value out of range; 23 integrity; 54 program limit: an index row too large). Retrying the same batch
 * can never clear them, so the batch is written row by row and the refused rows are set aside. Anything
 * else (a lost connection, a shutdown, a serialization failure, a schema that does not match) is retried.
 */
const ROW_FAULT_CLASSES = new Set(["22", "23", "54"]);

/** The SQLSTATE of a database error, wherever Drizzle, postgres.js or PGlite put it; null for others. */
export function sqlState(error: unknown): string | null {
  for (const item of errorCauses(error)) {
    const code = (item as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return null;
}

export function isRowFault(error: unknown): boolean {
  const state = sqlState(error);
  return state !== null && ROW_FAULT_CLASSES.has(state.slice(0, 2));
}

/**
 * A short description of a database error for logs and the dead-letter table: its SQLSTATE and the
 * innermost message, cut short. Never the error's own text: Drizzle's includes the query's parameters,
 * which for a batch are every row's values (an 8 MB model name was logged on every retry that way).
 */
export function describeDatabaseError(error: unknown): string {
  const state = sqlState(error) ?? "unknown";
  const innermost = errorCauses(error).at(-1) as { message?: unknown } | undefined;
  const message = typeof innermost?.message === "string" ? innermost.message : String(innermost);
  return `${state}: ${message.slice(0, 200)}`;
}

function valuesList(deltas: Map<number, number>): SQL {
  return sql.join(
    [...deltas].map(([id, amount]) => sql`(${id}::bigint, ${amount}::bigint)`),
    sql`, `,
  );
}

function upsertRollups(transaction: Transaction, rollups: RollupRow[]) {
  return transaction
    .insert(usageHourly)
    .values(rollups)
    .onConflictDoUpdate({
      target: [usageHourly.hour, usageHourly.userId, usageHourly.tokenId, usageHourly.model, usageHourly.channelId],
      set: {
        requests: sql`${usageHourly.requests} + excluded.requests`,
        errors: sql`${usageHourly.errors} + excluded.errors`,
        promptTokens: sql`${usageHourly.promptTokens} + excluded.prompt_tokens`,
        completionTokens: sql`${usageHourly.completionTokens} + excluded.completion_tokens`,
        cachedTokens: sql`${usageHourly.cachedTokens} + excluded.cached_tokens`,
        cacheWriteTokens: sql`${usageHourly.cacheWriteTokens} + excluded.cache_write_tokens`,
        cacheWrite1hTokens: sql`${usageHourly.cacheWrite1hTokens} + excluded.cache_write_1h_tokens`,
        cost: sql`${usageHourly.cost} + excluded.cost`,
        cacheSavings: sql`${usageHourly.cacheSavings} + excluded.cache_savings`,
        latencyMsSum: sql`${usageHourly.latencyMsSum} + excluded.latency_ms_sum`,
        latencyCount: sql`${usageHourly.latencyCount} + excluded.latency_count`,
      },
    });
}

/** Log rows and their hourly rollups, all at once (the normal path). */
async function insertLogs(transaction: Transaction, logs: RequestLogRow[], options: WriteUsageOptions): Promise<void> {
  for (let index = 0; index < logs.length; index += options.rowsPerInsert) {
    await transaction.execute(insertRequestLogs(logs.slice(index, index + options.rowsPerInsert)));
    if (options.yieldBetweenInserts && index + options.rowsPerInsert < logs.length) await new Promise(setImmediate);
  }
  const rollups = rollUp(logs);
  for (let index = 0; index < rollups.length; index += ROLLUP_ROWS_PER_INSERT) {
    await upsertRollups(transaction, rollups.slice(index, index + ROLLUP_ROWS_PER_INSERT));
  }
}

/**
 * Log rows one at a time, each with its rollup inside a savepoint: a row the database refuses is rolled
 * back alone and set aside in request_log_dead_letters. Only used for a batch that failed with a row fault.
 */
async function insertLogsIsolating(transaction: Transaction, logs: RequestLogRow[], options: WriteUsageOptions): Promise<number> {
  let deadLetters = 0;
  for (const log of logs) {
    try {
      await transaction.transaction(async (savepoint) => {
        await savepoint.execute(insertRequestLogs([log]));
        await upsertRollups(savepoint, rollUp([log]));
      });
    } catch (error) {
      if (!isRowFault(error)) throw error;
      deadLetters++;
      const reason = describeDatabaseError(error);
      options.log("request-log row refused by the database: set aside in request_log_dead_letters (its spend is applied)", {
        requestId: String(log.requestId).slice(0, 100),
        error: reason,
      });
      await transaction.execute(sql`
        insert into request_log_dead_letters (request_id, error, row)
        values (${sanitizeLogRow(log).requestId}, ${reason}, ${JSON.stringify(sanitizeLogRow(log))})`);
    }
  }
  return deadLetters;
}

/**
 * Writes one batch in one transaction: the spool's checkpoint row first (locked, so that a replay of the
 * same spool by another process waits), then log rows, rollups, token spend, user balances, this spool's
 * lease rows, and the checkpoint moved to the batch's last sequence number. A batch whose last sequence
 * number is already at or below the checkpoint was committed before (the answer to an earlier attempt was
 * lost, or the spool is replayed): `prepare` returns null for it, and nothing is written twice.
 *
 * A row fault (a value the database refuses) does not block the batch: it is written again row by row and
 * the refused rows go to request_log_dead_letters, while the spend of every record is still applied.
 */
export async function writeUsageBatch(
  db: Database,
  prepare: (committedSeq: number) => UsageBatch | null,
  options: WriteUsageOptions,
): Promise<WrittenUsage> {
  try {
    return await writeOnce(db, prepare, options, false);
  } catch (error) {
    if (!isRowFault(error)) throw error;
    options.log("usage batch refused by the database; writing it row by row", { error: describeDatabaseError(error) });
    return await writeOnce(db, prepare, options, true);
  }
}

async function writeOnce(
  db: Database,
  prepare: (committedSeq: number) => UsageBatch | null,
  options: WriteUsageOptions,
  isolating: boolean,
): Promise<WrittenUsage> {
  const written: WrittenUsage = {
    tokenDeltas: new Map(),
    userDeltas: new Map(),
    tokenTotals: new Map(),
    userBalances: new Map(),
    subjectDeltas: new Map(),
    tokenPeriods: new Map(),
    userPeriods: new Map(),
    userTotals: new Map(),
    teamTotals: new Map(),
    teamPeriods: new Map(),
    observations: [],
    leaseRows: new Map(),
    spoolSeq: 0,
    deadLetters: 0,
    applied: false,
  };
  await db.transaction(async (transaction) => {
    // Creates the mark at 0 the first time; otherwise locks it and reads it, in one statement.
    const [mark] = resultRows(
      await transaction.execute(sql`
        insert into usage_spool_checkpoints (spool_id, last_seq) values (${options.spoolId}, 0)
        on conflict (spool_id) do update set updated_at = now()
        returning last_seq`),
    );
    const committedSeq = Number(mark?.last_seq ?? 0);
    written.spoolSeq = committedSeq;
    const batch = prepare(committedSeq);
    if (!batch) return;
    const logs = batch.logs.map(sanitizeLogRow);
    if (isolating) written.deadLetters = await insertLogsIsolating(transaction, logs, options);
    else await insertLogs(transaction, logs, options);
    const { tokenDeltas, userDeltas } = batch;
    const subjectDeltas = batch.subjectDeltas ?? new Map<LeaseSubject, number>();
    if (tokenDeltas.size > 0) {
      const result = await transaction.execute(sql`
        update tokens set used_quota = tokens.used_quota + d.amount, last_used_at = now()
        from (values ${valuesList(tokenDeltas)}) as d(id, amount)
        where tokens.id = d.id
        returning tokens.id, tokens.used_quota, tokens.quota_limit as "limit", tokens.budget_period, tokens.budget_time_zone, tokens.alert_thresholds`);
      for (const row of resultRows(result)) {
        written.tokenTotals.set(Number(row.id), Number(row.used_quota));
        const observation = lifetimeObservation("token", row, Number(row.used_quota));
        if (observation) written.observations.push(observation);
      }
    }
    await applyPeriodDeltas(transaction, "token", subjectDeltas, written.tokenPeriods, written.observations);
    if (batch.previousKeyUses && batch.previousKeyUses.size > 0) {
      const ids = sql.join([...batch.previousKeyUses].map((id) => sql`${id}::bigint`), sql`, `);
      await transaction.execute(sql`update tokens set previous_key_last_used_at = now() where id in (${ids})`);
    }
    if (userDeltas.size > 0) {
      const result = await transaction.execute(sql`
        update users set balance = users.balance - d.amount, used_total = users.used_total + d.amount
        from (values ${valuesList(userDeltas)}) as d(id, amount)
        where users.id = d.id
        returning users.id, users.balance, users.used_total, users.budget_limit as "limit", users.budget_period, users.budget_time_zone, users.alert_thresholds`);
      for (const row of resultRows(result)) {
        written.userBalances.set(Number(row.id), Number(row.balance));
        written.userTotals.set(Number(row.id), Number(row.used_total));
        const observation = lifetimeObservation("user", row, Number(row.used_total));
        if (observation) written.observations.push(observation);
      }
    }
    await applyPeriodDeltas(transaction, "budget", subjectDeltas, written.userPeriods, written.observations);
    // Teams after users, as the lease acquisitions lock them.
    const teamDeltas = teamDeltasOf(subjectDeltas);
    if (teamDeltas.size > 0) {
      const result = await transaction.execute(sql`
        update teams set used_total = teams.used_total + d.amount
        from (values ${valuesList(teamDeltas)}) as d(id, amount)
        where teams.id = d.id
        returning teams.id, teams.used_total, teams.budget_limit as "limit", teams.budget_period, teams.budget_time_zone, teams.alert_thresholds`);
      for (const row of resultRows(result)) {
        written.teamTotals!.set(Number(row.id), Number(row.used_total));
        const observation = lifetimeObservation("team", row, Number(row.used_total));
        if (observation) written.observations.push(observation);
      }
    }
    await applyPeriodDeltas(transaction, "team", subjectDeltas, written.teamPeriods!, written.observations);
    const leaseDeltas = [
      ...[...tokenDeltas].map(([id, amount]) => sql`(${`token:${id}`}, ${amount}::bigint)`),
      ...[...userDeltas].map(([id, amount]) => sql`(${`user:${id}`}, ${amount}::bigint)`),
      ...[...subjectDeltas].map(([subject, amount]) => sql`(${subject}, ${amount}::bigint)`),
    ];
    // After tokens and users: every transaction that locks these rows takes them in that order.
    if (leaseDeltas.length > 0) {
      const result = await transaction.execute(sql`
        update quota_leases set amount = greatest(0, quota_leases.amount - d.amount)
        from (values ${sql.join(leaseDeltas, sql`, `)}) as d(subject, amount)
        where quota_leases.subject = d.subject and quota_leases.instance_id = ${options.spoolId}
        returning quota_leases.subject, quota_leases.amount, ${sql.raw(DATABASE_CLOCK_SQL)} as at`);
      for (const row of resultRows(result)) written.leaseRows.set(String(row.subject) as LeaseSubject, { amount: Number(row.amount), at: Number(row.at) });
    }
    const lastSeq = Math.max(committedSeq, batch.lastSeq);
    await transaction.execute(sql`
      update usage_spool_checkpoints set last_seq = ${lastSeq}, updated_at = now() where spool_id = ${options.spoolId}`);
    written.tokenDeltas = tokenDeltas;
    written.userDeltas = userDeltas;
    written.subjectDeltas = subjectDeltas;
    written.spoolSeq = lastSeq;
    written.applied = true;
  });
  return written;
}

