import { describe, expect, test } from "bun:test";
import { withRetries } from "./retry-load";

describe("withRetries", () => {
  test("a read that fails once is tried again and its value returned", async () => {
    let calls = 0;
    const load = withRetries(async (key: string) => {
      calls++;
      if (calls === 1) throw new Error("connection closed");
      return `value of ${key}`;
    }, [1]);
    expect(await load("a")).toBe("value of a");
    expect(calls).toBe(2);
  });

  test("a read that keeps failing fails after the last pause, with its own error", async () => {
    let calls = 0;
    const load = withRetries(async () => {
      calls++;
      throw new Error(`down ${calls}`);
    }, [1, 1]);
    await expect(load("a")).rejects.toThrow("down 3");
    expect(calls).toBe(3);
  });
});
