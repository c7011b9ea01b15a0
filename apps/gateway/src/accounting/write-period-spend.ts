import type { Database } from "@tollgate/db";
import { resultRows } from "@tollgate/db/client";
import { sql } from "drizzle-orm";
import type { BudgetObservation } from "./budget-observation";
import { parseSubject } from "./budget-view";
import type { LeaseSubject } from "./quota-leases";

/** A row's current period spend after a commit. */
export interface PeriodTotals {
  /** Epoch ms, null when the row has no period spend yet. */
  periodStart: number | null;
  periodUsed: number;
}

type ResultRow = Record<string, unknown>;
type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

const thresholdsOf = (value: unknown): number[] | null =>
  Array.isArray(value) ? value.map(Number) : typeof value === "string" ? parseIntegerArray(value) : null;

/** `{50,80}` as a driver may return an integer[] it did not parse. */
function parseIntegerArray(text: string): number[] {
  const inner = text.replace(/^\{|\}$/g, "");
  return inner === "" ? [] : inner.split(",").map(Number);
}

/**
 * A team's spend by team id, from the team subjects a batch counts in (a call of a team's token with a
 * budget counts in exactly one: the lifetime one or its period's): what moves the team's lifetime total.
 */
export function teamDeltasOf(subjectDeltas: Map<LeaseSubject, number>): Map<number, number> {
  const deltas = new Map<number, number>();
  for (const [subject, amount] of subjectDeltas) {
    if (!subject.startsWith("team:")) continue;
    const { id } = parseSubject(subject);
    deltas.set(id, (deltas.get(id) ?? 0) + amount);
  }
  return deltas;
}

/** A lifetime budget's spend after the commit (none when the row has a period or no limit). */
export function lifetimeObservation(kind: BudgetObservation["kind"], row: ResultRow, spent: number): BudgetObservation | null {
  if (row.limit === null || row.limit === undefined || row.budget_period !== "none") return null;
  return {
    kind,
    id: Number(row.id),
    period: "none",
    timeZone: String(row.budget_time_zone),
    periodStart: 0,
    limit: Number(row.limit),
    spent,
    thresholds: thresholdsOf(row.alert_thresholds),
  };
}

/**
 * Moves spend into the period it was admitted in: added when the row counts that period, starting the
 * count when the row's period is older (the first spend after a reset), and left out when the row has
 * moved on to a later period or another period setting (the spend is in the lifetime total all the same).
 * A batch can hold two periods of one row (calls on both sides of a reset): one statement per round, oldest
 * period first, as one UPDATE changes a row once.
 */
export async function applyPeriodDeltas(
  transaction: Transaction,
  kind: "token" | "budget" | "team",
  subjectDeltas: Map<LeaseSubject, number>,
  totals: Map<number, PeriodTotals>,
  observations: BudgetObservation[],
): Promise<void> {
  const entries = [...subjectDeltas]
    .map(([subject, amount]) => ({ parsed: parseSubject(subject), amount }))
    .filter((entry) => entry.parsed.kind === kind && entry.parsed.period !== undefined)
    .sort((a, b) => a.parsed.period!.start - b.parsed.period!.start);
  const table = sql.raw(kind === "token" ? "tokens" : kind === "team" ? "teams" : "users");
  const limit = kind === "token" ? sql.raw("quota_limit") : sql.raw("budget_limit");
  while (entries.length > 0) {
    const round: typeof entries = [];
    const seen = new Set<number>();
    for (let index = 0; index < entries.length; ) {
      const entry = entries[index]!;
      if (seen.has(entry.parsed.id)) {
        index++;
        continue;
      }
      seen.add(entry.parsed.id);
      round.push(entry);
      entries.splice(index, 1);
    }
    const values = sql.join(
      round.map(
        ({ parsed, amount }) =>
          sql`(${parsed.id}::bigint, ${new Date(parsed.period!.start).toISOString()}::timestamptz, ${parsed.period!.period}::text, ${parsed.period!.timeZone}::text, ${amount}::bigint)`,
      ),
      sql`, `,
    );
    const result = await transaction.execute(sql`
      update ${table} as t set
        period_used = case when t.period_start = d.start then t.period_used + d.amount else d.amount end,
        period_start = d.start
      from (values ${values}) as d(id, start, period, zone, amount)
      where t.id = d.id and t.budget_period = d.period and t.budget_time_zone = d.zone
        and (t.period_start is null or t.period_start <= d.start)
      returning t.id, (extract(epoch from t.period_start) * 1000)::bigint as period_start_ms, t.period_used,
        t.${limit} as "limit", t.budget_period, t.budget_time_zone, t.alert_thresholds`);
    for (const row of resultRows(result)) {
      const id = Number(row.id);
      const periodStart = Number(row.period_start_ms);
      totals.set(id, { periodStart, periodUsed: Number(row.period_used) });
      if (row.limit === null || row.limit === undefined) continue;
      observations.push({
        kind: kind === "budget" ? "user" : kind,
        id,
        period: row.budget_period as BudgetObservation["period"],
        timeZone: String(row.budget_time_zone),
        periodStart,
        limit: Number(row.limit),
        spent: Number(row.period_used),
        thresholds: thresholdsOf(row.alert_thresholds),
      });
    }
  }
}
