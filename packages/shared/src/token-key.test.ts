import { describe, expect, test } from "bun:test";
import { displayPrefix, generateTokenSecret, hashTokenSecret } from "./token-key";

describe("token keys", () => {
  test("secrets start with sk- and are unique", () => {
    const first = generateTokenSecret();
    expect(first).toMatch(/^sk-[0-9A-Za-z]{48}$/);
    expect(generateTokenSecret()).not.toBe(first);
  });

  test("the display prefix and hash do not contain the secret", () => {
    const secret = generateTokenSecret();
    expect(displayPrefix(secret)).toBe(`${secret.slice(0, 7)}…${secret.slice(-4)}`);
    expect(hashTokenSecret(secret)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashTokenSecret(secret)).not.toContain(secret.slice(3));
  });
});
