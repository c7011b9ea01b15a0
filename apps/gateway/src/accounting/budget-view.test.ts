import { describe, expect, test } from "bun:test";
import { BudgetWindows } from "@tollgate/shared";
import { type BudgetFields, budgetView, parseSubject, periodSubject } from "./budget-view";

const fields = (values: Partial<BudgetFields> = {}): BudgetFields => ({ budgetPeriod: "daily", budgetTimeZone: "UTC", periodStart: null, periodUsed: 0, ...values });

describe("budget views", () => {
  test("a period subject names the period's start, the period and the zone, and reads back", () => {
    const subject = periodSubject("token", 12, { start: 1_764_547_200_000, end: 1_767_225_600_000 }, "monthly", "America/Argentina/Buenos_Aires");
    expect(subject).toBe("token:12@1764547200000@monthly@America/Argentina/Buenos_Aires");
    expect(parseSubject(subject)).toEqual({ kind: "token", id: 12, period: { start: 1_764_547_200_000, period: "monthly", timeZone: "America/Argentina/Buenos_Aires" } });
    expect(parseSubject("user:4")).toEqual({ kind: "user", id: 4 });
  });

  test("a row's period spend counts in its own period and not in a later one", () => {
    const windows = new BudgetWindows();
    const noon = Date.parse("2026-11-26T12:00:00Z");
    const today = Date.parse("2026-11-26T00:00:00Z");
    expect(budgetView("token", 1, 5000, 0, fields({ periodStart: today, periodUsed: 1200 }), windows, noon)?.spent).toBe(1200);
    expect(budgetView("token", 1, 5000, 0, fields({ periodStart: today - 86_400_000, periodUsed: 1200 }), windows, noon)?.spent).toBe(0);
  });

  test("the view is kept on the row for the rest of its period and rebuilt after it ends", () => {
    const windows = new BudgetWindows();
    const row = fields();
    const first = budgetView("token", 1, 5000, 0, row, windows, Date.parse("2026-11-26T01:00:00Z"));
    expect(budgetView("token", 1, 5000, 0, row, windows, Date.parse("2026-11-26T23:59:59.999Z"))).toBe(first!);
    const next = budgetView("token", 1, 5000, 0, row, windows, Date.parse("2026-11-27T00:00:00Z"));
    expect(next).not.toBe(first!);
    expect(next!.subject).toBe(`token:1@${Date.parse("2026-11-27T00:00:00Z")}@daily@UTC`);
  });

  test("a lifetime budget counts the lifetime spend and has no window; no limit has no view", () => {
    const windows = new BudgetWindows();
    expect(budgetView("budget", 3, 9000, 4000, fields({ budgetPeriod: "none" }), windows, 0)).toEqual({ subject: "budget:3", limit: 9000, window: null, spent: 4000 });
    expect(budgetView("token", 3, null, 4000, fields(), windows, 0)).toBeNull();
  });
});
