import { describe, expect, test } from "bun:test";
import { createSecretBox, maskSecret } from "./secret-box";
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

describe("secret box", () => {
  test("encrypts with a fresh IV and decrypts back", async () => {
    const box = await createSecretBox("a-test-secret-of-enough-length");
    const first = await box.encrypt("sk-upstream-key");
    const second = await box.encrypt("sk-upstream-key");
    expect(first).not.toBe(second);
    expect(first).not.toContain("sk-upstream-key");
    expect(await box.decrypt(first)).toBe("sk-upstream-key");
  });

  test("a different secret cannot decrypt", async () => {
    const sealed = await (await createSecretBox("a-test-secret-of-enough-length")).encrypt("k");
    const other = await createSecretBox("another-secret-of-enough-length");
    await expect(other.decrypt(sealed)).rejects.toThrow();
    expect(maskSecret("sk-1234567890abcdef")).toBe("sk-1…cdef");
  });
});
