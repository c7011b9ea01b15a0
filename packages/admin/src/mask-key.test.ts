import { describe, expect, test } from "bun:test";
import { maskKey } from "./mask-key";

describe("maskKey", () => {
  test("shows only the last 4 characters, after the sk- that names the key format", () => {
    expect(maskKey("sk-proj-0123456789abcdefWXYZ")).toBe("sk-…WXYZ");
    expect(maskKey("AIzaSyA0123456789abcdefWXYZ")).toBe("…WXYZ");
  });

  test("shows nothing of a key shorter than 16 characters", () => {
    expect(maskKey("sk-short-1234")).toBe("****");
    expect(maskKey("")).toBe("****");
  });

  test("never shows a character of the key's secret part other than the last 4", () => {
    const key = "sk-9f8e7d6c5b4a39281706";
    const masked = maskKey(key);
    const shown = masked.replace("sk-", "").replace("…", "");
    expect(shown).toBe(key.slice(-4));
  });
});
