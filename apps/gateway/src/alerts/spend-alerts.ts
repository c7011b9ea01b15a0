import { discardBody } from "@tollgate/upstream";
import { type Database, resultRows, settings } from "@tollgate/db";
import {
  budgetWindowAt,
  checkResolvedAddress,
  DEFAULT_UPSTREAM_ADDRESS_POLICY,
  microsToUsd,
  type SecretBox,
  signWebhookBody,
  type UpstreamAddressPolicy,
  WEBHOOK_SECRET_BINDING,
} from "@tollgate/shared";
import { eq, type SQL, sql } from "drizzle-orm";
import type { BudgetObservation } from "../accounting/budget-observation";
import type { Logger } from "../logger";
import type { GatewaySettings } from "../settings-cache";

export interface SpendAlertOptions {
  /** How often each instance looks for alerts due (a retry another instance left, a crash). */
  sweepMs: number;
  /** First retry after this long, doubling per attempt. */
  retryBaseMs: number;
  /** Attempts before an alert is given up (it stays in the console's notices). */
  maxAttempts: number;
  /** Time the webhook has to answer. */
  timeoutMs: number;
}

/** Retries after 2 s, 4 s, ... 512 s: ten attempts over about 17 minutes. */
export const defaultSpendAlertOptions: SpendAlertOptions = { sweepMs: 30_000, retryBaseMs: 2000, maxAttempts: 10, timeoutMs: 10_000 };

/** A delivery's lock: another instance may take the alert over once it lapses (a crash mid-delivery). */
const LOCK_SECONDS = 60;

/** The body POSTed to the webhook (`type: "spend_alert"`). */
export interface SpendAlertBody {
  type: "spend_alert";
  /** Stable per alert: a receiver can drop a repeat (a retry whose earlier answer was lost). */
  id: string;
  subject: "token" | "user" | "team";
  token: { id: number; name: string } | null;
  /** The token's owner or the user; null for a team's alert. */
  user: { id: number; name: string } | null;
  /** The team, for a team's alert; null otherwise. */
  team: { id: number; name: string } | null;
  period: string;
  period_start: string | null;
  period_end: string | null;
  threshold: number;
  spent_usd: string;
  limit_usd: string;
  created_at: string;
}

/** Thresholds crossed by `spent` of `limit`, in percent. */
export function crossedThresholds(thresholds: readonly number[], spent: number, limit: number): number[] {
  if (limit <= 0) return [];
  return thresholds.filter((threshold) => spent * 100 >= limit * threshold);
}

type Row = Record<string, unknown>;

const epochMs = (column: string) => sql.raw(`(extract(epoch from ${column}) * 1000)::bigint as ${column}_ms`);

/** An alert's columns, its instants as epoch ms (drivers differ in how they return timestamptz). */
export const ALERT_COLUMNS = sql.join(
  [
    sql.raw(`id, subject_kind, subject_id, user_id, token_id, token_name, user_name, team_id, team_name, period, threshold, spent, "limit", attempts`),
    epochMs("period_start"),
    epochMs("period_end"),
    epochMs("created_at"),
  ],
  sql`, `,
);

const isoOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : new Date(Number(value)).toISOString());

/**
 * Spend alerts, off the request path: the write-behind's commits report budgets whose spend moved; each
 * threshold crossed in a period is claimed by inserting its row (unique per subject, period start and
 * threshold), so one instance wins however many see it, and that row is then delivered to the webhook,
 * signed, retried with exponential back-off. Deliveries are picked with FOR UPDATE SKIP LOCKED, so any
 * instance may take over a retry or a delivery a crashed instance left.
 */
export class SpendAlerts {
  /** Claims this instance has made or seen refused: not asked again. */
  private readonly seen = new Set<string>();
  private readonly retryTimers = new Set<ReturnType<typeof setTimeout>>();
  private delivering: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** Claims in progress (tests and shutdown wait for them). */
  private claiming = new Set<Promise<void>>();

  constructor(
    private readonly db: Database,
    private readonly secretBox: SecretBox,
    private readonly settingsNow: () => GatewaySettings | Promise<GatewaySettings>,
    private readonly log: Logger,
    private readonly options: SpendAlertOptions = defaultSpendAlertOptions,
    private readonly addressPolicy: UpstreamAddressPolicy = DEFAULT_UPSTREAM_ADDRESS_POLICY,
  ) {}

  /** Budgets as a commit left them; never throws, never blocks the caller. */
  observe(observations: readonly BudgetObservation[]): void {
    if (this.stopped) return;
    const claim = this.claimCrossed(observations).catch((error) => this.log("warn", "could not record spend alerts", { error: String(error) }));
    this.claiming.add(claim);
    void claim.finally(() => this.claiming.delete(claim));
  }

  private async claimCrossed(observations: readonly BudgetObservation[]): Promise<void> {
    const current = await this.settingsNow();
    let claimed = false;
    for (const observation of observations) {
      const thresholds = crossedThresholds(observation.thresholds ?? current.spendAlertThresholds, observation.spent, observation.limit).filter(
        (threshold) => !this.seen.has(seenKey(observation, threshold)),
      );
      if (thresholds.length === 0) continue;
      const inserted = await this.db.execute(claimStatement(observation, thresholds, current.spendAlertWebhookUrl !== ""));
      if (this.seen.size > 100_000) this.seen.clear();
      for (const threshold of thresholds) this.seen.add(seenKey(observation, threshold));
      if (resultRows(inserted).length > 0) claimed = true;
    }
    if (claimed) this.deliverDue();
  }

  /** Resolves once the claims started so far are written (tests; shutdown). */
  async settled(): Promise<void> {
    while (this.claiming.size > 0) await Promise.all([...this.claiming]);
    while (this.delivering) await this.delivering;
  }

  /** How often deliverDue() should run (the gateway's jobs run it, and once as they start). */
  get sweepIntervalMs(): number {
    return this.options.sweepMs;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    await Promise.all([...this.claiming]);
    await this.delivering;
  }

  /** Delivers every alert due now; one pass at a time, another run after it if asked meanwhile. */
  deliverDue(): void {
    if (this.stopped) return;
    if (this.delivering) {
      this.again = true;
      return;
    }
    this.delivering = this.deliverPasses()
      .catch((error) => this.log("warn", "spend alert delivery failed", { error: String(error) }))
      .finally(() => {
        this.delivering = null;
      });
  }

  private async deliverPasses(): Promise<void> {
    do {
      this.again = false;
      const current = await this.settingsNow();
      if (current.spendAlertWebhookUrl === "") return;
      const secret = await this.webhookSecret();
      for (;;) {
        const due = resultRows(
          await this.db.execute(sql`
            update spend_alerts set locked_until = now() + make_interval(secs => ${LOCK_SECONDS}), attempts = attempts + 1
            where id in (
              select id from spend_alerts
              where delivered_at is null and next_attempt_at <= now() and (locked_until is null or locked_until < now())
              order by id limit 20 for update skip locked)
            returning ${ALERT_COLUMNS}`),
        );
        if (due.length === 0) break;
        await Promise.all(due.map((row) => this.deliver(row, current.spendAlertWebhookUrl, secret)));
        // A stopping instance finishes the deliveries it locked and leaves the rest to the others.
        if (this.stopped) return;
      }
    } while (this.again && !this.stopped);
  }

  private async webhookSecret(): Promise<string> {
    const [row] = await this.db.select().from(settings).where(eq(settings.key, "spend_alert_webhook_secret"));
    if (!row || typeof row.value !== "string" || row.value === "") return "";
    return this.secretBox.decrypt(row.value, WEBHOOK_SECRET_BINDING);
  }

  private async deliver(row: Row, url: string, secret: string): Promise<void> {
    const body = JSON.stringify(alertBody(row));
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "tollgate-spend-alerts",
      "x-tollgate-event": "spend_alert",
      "x-tollgate-timestamp": String(timestamp),
    };
    if (secret !== "") headers["x-tollgate-signature"] = await signWebhookBody(secret, timestamp, body);
    // The address is checked again as it resolves now: a name may point at a metadata service.
    let failure: string | null = await checkResolvedAddress(url, this.addressPolicy);
    if (failure === null) {
      try {
        const response = await fetch(url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(this.options.timeoutMs) });
        // Only the status matters: the receiver's body is dropped unread (it could be endless).
        discardBody(response);
        if (response.status < 200 || response.status > 299) failure = `HTTP ${response.status}`;
      } catch (error) {
        failure = error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 200) : "request failed";
      }
    }
    const id = Number(row.id);
    if (failure === null) {
      await this.db.execute(sql`update spend_alerts set delivered_at = now(), next_attempt_at = null, locked_until = null, last_error = null where id = ${id}`);
      return;
    }
    const attempts = Number(row.attempts);
    if (attempts >= this.options.maxAttempts) {
      this.log("warn", "spend alert given up after its last attempt", { alert: id, attempts, error: failure });
      await this.db.execute(sql`update spend_alerts set next_attempt_at = null, locked_until = null, last_error = ${failure} where id = ${id}`);
      return;
    }
    const delayMs = this.options.retryBaseMs * 2 ** (attempts - 1);
    await this.db.execute(sql`
      update spend_alerts set next_attempt_at = now() + make_interval(secs => ${delayMs / 1000}), locked_until = null, last_error = ${failure}
      where id = ${id}`);
    this.log("info", "spend alert delivery failed; will retry", { alert: id, attempts, retryInMs: delayMs, error: failure });
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      this.deliverDue();
    }, delayMs);
    timer.unref?.();
    this.retryTimers.add(timer);
  }
}

function seenKey(observation: BudgetObservation, threshold: number): string {
  return `${observation.kind}:${observation.id}:${observation.periodStart}:${threshold}`;
}

/** One row per crossed threshold; a row that exists already (claimed by any instance) is left alone. */
function claimStatement(observation: BudgetObservation, thresholds: number[], deliver: boolean): SQL {
  const periodStart = new Date(observation.periodStart).toISOString();
  const window = observation.period === "none" ? null : budgetWindowAt(observation.period, observation.timeZone, observation.periodStart);
  const periodEnd = window ? new Date(window.end).toISOString() : null;
  const levels = sql.join(thresholds.map((threshold) => sql`(${threshold}::int)`), sql`, `);
  const due = deliver ? sql`now()` : sql`null::timestamptz`;
  const common = sql`${observation.period}, ${periodStart}::timestamptz, ${periodEnd}::timestamptz, levels.threshold, ${observation.spent}::bigint, ${observation.limit}::bigint, ${due}`;
  const columns = sql`(subject_kind, subject_id, user_id, token_id, token_name, user_name, team_id, team_name, period, period_start, period_end, threshold, spent, "limit", next_attempt_at)`;
  if (observation.kind === "token") {
    return sql`
      insert into spend_alerts ${columns}
      select 'token', t.id, t.user_id, t.id, t.name, u.name, null, null, ${common}
      from tokens t join users u on u.id = t.user_id, (values ${levels}) as levels(threshold)
      where t.id = ${observation.id}
      on conflict on constraint spend_alerts_once do nothing
      returning id`;
  }
  if (observation.kind === "team") {
    return sql`
      insert into spend_alerts ${columns}
      select 'team', g.id, null, null, null, null, g.id, g.name, ${common}
      from teams g, (values ${levels}) as levels(threshold)
      where g.id = ${observation.id}
      on conflict on constraint spend_alerts_once do nothing
      returning id`;
  }
  return sql`
    insert into spend_alerts ${columns}
    select 'user', u.id, u.id, null, null, u.name, null, null, ${common}
    from users u, (values ${levels}) as levels(threshold)
    where u.id = ${observation.id}
    on conflict on constraint spend_alerts_once do nothing
    returning id`;
}

export function alertBody(row: Row): SpendAlertBody {
  const isLifetime = row.period === "none";
  return {
    type: "spend_alert",
    id: `alert_${row.id}`,
    subject: row.subject_kind === "token" ? "token" : row.subject_kind === "team" ? "team" : "user",
    token: row.token_id === null || row.token_id === undefined ? null : { id: Number(row.token_id), name: String(row.token_name) },
    user: row.user_id === null || row.user_id === undefined ? null : { id: Number(row.user_id), name: String(row.user_name) },
    team: row.team_id === null || row.team_id === undefined ? null : { id: Number(row.team_id), name: String(row.team_name) },
    period: String(row.period),
    period_start: isLifetime ? null : isoOrNull(row.period_start_ms),
    period_end: isoOrNull(row.period_end_ms),
    threshold: Number(row.threshold),
    spent_usd: microsToUsd(Number(row.spent)),
    limit_usd: microsToUsd(Number(row.limit)),
    created_at: isoOrNull(row.created_at_ms)!,
  };
}
