/**
 * Budget periods: a token's quota or a user's budget either never resets (`none`, a lifetime total) or
 * starts again at the first instant of each day, ISO week (Monday) or calendar month in a time zone.
 * Windows are computed with Intl once per (period, zone) and period, never per request.
 */
export const BUDGET_PERIODS = ["none", "daily", "weekly", "monthly"] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

export function isBudgetPeriod(value: unknown): value is BudgetPeriod {
  return typeof value === "string" && (BUDGET_PERIODS as readonly string[]).includes(value);
}

/** One period: [start, end) in epoch milliseconds. */
export interface BudgetWindow {
  start: number;
  end: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/**
 * The IANA name of a time zone as Intl knows it (`utc` -> `UTC`, `europe/paris` -> `Europe/Paris`), or
 * null when it is not one.
 */
export function canonicalTimeZone(value: string): string | null {
  const trimmed = value.trim();
  if (trimmed === "" || trimmed.length > 64) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: trimmed }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

interface WallClock {
  year: number;
  month: number;
  day: number;
}

/** Local calendar date in `timeZone` at `at`, and the zone's offset there (local minus UTC, ms). */
function wallClock(at: number, timeZone: string): WallClock & { offset: number } {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(at))) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  const local = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return { year: parts.year!, month: parts.month!, day: parts.day!, offset: local - Math.floor(at / 1000) * 1000 };
}

/**
 * The first instant of a local calendar date in `timeZone`. Two passes over the offset handle a change of
 * offset between UTC midnight and local midnight; where a zone skips its midnight (a few zones move their
 * clocks at 00:00), the day starts at the first instant that exists, when the clocks jump.
 */
function startOfLocalDate(date: WallClock, timeZone: string): number {
  const asUtc = Date.UTC(date.year, date.month - 1, date.day);
  let candidate = asUtc - wallClock(asUtc, timeZone).offset;
  const second = asUtc - wallClock(candidate, timeZone).offset;
  if (second !== candidate) {
    const local = wallClock(second, timeZone);
    candidate = local.year === date.year && local.month === date.month && local.day === date.day ? Math.min(candidate, second) : Math.max(candidate, second);
  }
  return candidate;
}

function addDays(date: WallClock, days: number): WallClock {
  const moved = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() };
}

/** The period of `period` in `timeZone` that contains `at`; null for `none` (no resets). */
export function budgetWindowAt(period: BudgetPeriod, timeZone: string, at: number): BudgetWindow | null {
  if (period === "none") return null;
  const today = wallClock(at, timeZone);
  let first: WallClock;
  let next: WallClock;
  if (period === "daily") {
    first = today;
    next = addDays(today, 1);
  } else if (period === "weekly") {
    // ISO weeks start on Monday (getUTCDay: 0 is Sunday).
    const weekday = (new Date(Date.UTC(today.year, today.month - 1, today.day)).getUTCDay() + 6) % 7;
    first = addDays(today, -weekday);
    next = addDays(first, 7);
  } else {
    first = { year: today.year, month: today.month, day: 1 };
    next = today.month === 12 ? { year: today.year + 1, month: 1, day: 1 } : { year: today.year, month: today.month + 1, day: 1 };
  }
  const start = startOfLocalDate(first, timeZone);
  const end = startOfLocalDate(next, timeZone);
  // A start computed past `at` (an instant inside a skipped hour right after midnight) belongs to the day before.
  if (start > at) return budgetWindowAt(period, timeZone, start - 1);
  return { start, end };
}

/**
 * The current window of every (period, zone) in use, recomputed only when the clock passes its end: the
 * request path does a map lookup and a comparison.
 */
export class BudgetWindows {
  private readonly windows = new Map<string, BudgetWindow>();

  at(period: BudgetPeriod, timeZone: string, now: number): BudgetWindow | null {
    if (period === "none") return null;
    const key = `${period}|${timeZone}`;
    const window = this.windows.get(key);
    if (window && now >= window.start && now < window.end) return window;
    const fresh = budgetWindowAt(period, timeZone, now);
    if (fresh && this.windows.size < 10_000) this.windows.set(key, fresh);
    return fresh;
  }
}
