import { describe, expect, test } from "bun:test";
import { retryRead } from "./retry-read";

describe("retryRead", () => {
  test("a read that fails once is tried again and its value returned", async () => {
    let calls = 0;
    const value = await retryRead(async () => {
      calls++;
      if (calls === 1) throw new Error("connection closed");
      return "value";
    }, [1]);
    expect(value).toBe("value");
    expect(calls).toBe(2);
  });

  test("a read that keeps failing fails after the last pause, with its own error", async () => {
    let calls = 0;
    const failing = retryRead(async () => {
      calls++;
      throw new Error(`down ${calls}`);
    }, [1, 1]);
    await expect(failing).rejects.toThrow("down 3");
    expect(calls).toBe(3);
  });
});
