import { describe, expect, test } from "bun:test";
import { formatUsd, formatUsdExact, microsToInput } from "./money";

describe("formatUsd", () => {
  test("an ordinary amount shows dollars and cents", () => {
    expect(formatUsd(2_500_000)).toBe("$2.50");
    expect(formatUsd(5_000_000)).toBe("$5.00");
    expect(formatUsd(3_000_000)).toBe("$3.00");
    expect(formatUsd(1_234_567_890)).toBe("$1,234.57");
    expect(formatUsd(0)).toBe("$0.00");
  });

  test("an amount below a cent shows two significant digits, so that a single micro-USD is not shown as zero", () => {
    expect(formatUsd(1)).toBe("$0.000001");
    expect(formatUsd(50)).toBe("$0.00005");
    expect(formatUsd(25)).toBe("$0.000025");
    expect(formatUsd(1_234)).toBe("$0.0013");
    expect(formatUsd(9_999)).toBe("$0.01");
    expect(formatUsd(10_000)).toBe("$0.01");
  });

  test("a fraction of a micro-USD rounds away from zero", () => {
    expect(formatUsd(0.4)).toBe("$0.000001");
    expect(formatUsd(-0.4)).toBe("-$0.000001");
  });

  test("a negative balance puts its sign before the dollar sign", () => {
    expect(formatUsd(-1_500_000)).toBe("-$1.50");
    expect(formatUsd(-5)).toBe("-$0.000005");
  });

  test("a missing amount shows the fallback", () => {
    expect(formatUsd(null)).toBe("—");
    expect(formatUsd(undefined, "Never")).toBe("Never");
  });
});

describe("formatUsdExact", () => {
  test("every micro-USD shows, with at least cents", () => {
    expect(formatUsdExact(2_000_000)).toBe("$2.00");
    expect(formatUsdExact(1_999_950)).toBe("$1.99995");
    expect(formatUsdExact(50)).toBe("$0.00005");
    expect(formatUsdExact(1_234_567_891)).toBe("$1,234.567891");
    expect(formatUsdExact(-5)).toBe("-$0.000005");
    expect(formatUsdExact(null, "Unlimited")).toBe("Unlimited");
  });
});

describe("microsToInput", () => {
  test("micro-USD become the shortest decimal text that parses back to the same amount", () => {
    expect(microsToInput(2_500_000)).toBe("2.5");
    expect(microsToInput(10_000_000)).toBe("10");
    expect(microsToInput(1)).toBe("0.000001");
    expect(microsToInput(null)).toBe("");
  });
});
