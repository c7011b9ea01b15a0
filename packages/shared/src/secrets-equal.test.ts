import { describe, expect, test } from "bun:test";
import { secretsEqual } from "./secrets-equal";

describe("secretsEqual", () => {
  test("is true only for the very same text, whatever the lengths", () => {
    expect(secretsEqual("Bearer abc123", "Bearer abc123")).toBe(true);
    expect(secretsEqual("Bearer abc124", "Bearer abc123")).toBe(false);
    expect(secretsEqual("Bearer abc", "Bearer abc123")).toBe(false);
    expect(secretsEqual("", "Bearer abc123")).toBe(false);
    expect(secretsEqual("", "")).toBe(true);
  });
});
