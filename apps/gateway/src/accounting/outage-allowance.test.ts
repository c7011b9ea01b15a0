import { describe, expect, test } from "bun:test";
import { OutageAllowances } from "./outage-allowance";

describe("OutageAllowances", () => {
  test("the allowance is the share of the tightest limit, at most the cap", () => {
    const allowances = new OutageAllowances({ share: 0.02, capMicroUsd: 1_000_000 });
    expect(allowances.allowanceFor(1_000_000)).toBe(20_000);
    expect(allowances.allowanceFor(500_000_000)).toBe(1_000_000);
    expect(allowances.allowanceFor(null)).toBe(1_000_000);
  });

  test("holds and spend together never pass the allowance; a real cost above its hold is billed and shrinks what is left", () => {
    const allowances = new OutageAllowances();
    expect(allowances.tryHold(1, 10_000, 6_000)).toBe(true);
    expect(allowances.tryHold(1, 10_000, 5_000)).toBe(false);
    allowances.spend(1, 6_000, 7_000);
    expect(allowances.used(1)).toBe(7_000);
    expect(allowances.tryHold(1, 10_000, 3_000)).toBe(true);
    expect(allowances.tryHold(1, 10_000, 1)).toBe(false);
    // Another token has its own allowance.
    expect(allowances.tryHold(2, 10_000, 10_000)).toBe(true);
  });

  test("a lease granted again makes the allowance whole, keeping the holds of calls still in flight", () => {
    const allowances = new OutageAllowances();
    allowances.tryHold(1, 10_000, 4_000);
    allowances.spend(1, 4_000, 4_000);
    allowances.tryHold(1, 10_000, 3_000);
    allowances.reconciled(1);
    expect(allowances.used(1)).toBe(3_000);
    allowances.spend(1, 3_000, 2_500);
    allowances.reconciled(1);
    expect(allowances.used(1)).toBe(0);
  });
});
