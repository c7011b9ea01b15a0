import { describe, expect, test } from "bun:test";
import { sealWithVersionOne } from "../../../test/helpers/seal-version-one";
import { channelKeyBinding, WEBHOOK_SECRET_BINDING } from "./secret-bindings";
import { createSecretBox, isSealedWithOldFormat, maskSecret } from "./secret-box";

const SECRET = "a-test-secret-of-enough-length";

describe("secret box", () => {
  test("encrypts with a fresh IV in the v2 format and decrypts back", async () => {
    const box = await createSecretBox(SECRET);
    const first = await box.encrypt("sk-upstream-key", channelKeyBinding(1));
    const second = await box.encrypt("sk-upstream-key", channelKeyBinding(1));
    expect(first).toStartWith("v2:");
    expect(first).not.toBe(second);
    expect(first).not.toContain("sk-upstream-key");
    expect(await box.decrypt(first, channelKeyBinding(1))).toBe("sk-upstream-key");
    expect(isSealedWithOldFormat(first)).toBe(false);
  });

  test("a different secret cannot decrypt", async () => {
    const sealed = await (await createSecretBox(SECRET)).encrypt("k", channelKeyBinding(1));
    const other = await createSecretBox("another-secret-of-enough-length");
    await expect(other.decrypt(sealed, channelKeyBinding(1))).rejects.toThrow();
    expect(maskSecret("sk-1234567890abcdef")).toBe("sk-1…cdef");
  });

  test("a value sealed for one row does not open for another row or table", async () => {
    const box = await createSecretBox(SECRET);
    const sealed = await box.encrypt("sk-channel-one", channelKeyBinding(1));
    await expect(box.decrypt(sealed, channelKeyBinding(2))).rejects.toThrow();
    await expect(box.decrypt(sealed, WEBHOOK_SECRET_BINDING)).rejects.toThrow();
  });

  test("a v1 value written before v2 still opens, whatever the binding", async () => {
    const box = await createSecretBox(SECRET);
    const old = await sealWithVersionOne(SECRET, "sk-from-v1");
    expect(isSealedWithOldFormat(old)).toBe(true);
    expect(await box.decrypt(old, channelKeyBinding(7))).toBe("sk-from-v1");
  });

  test("the v2 key is not the v1 key: a v2 body relabelled v1 does not open", async () => {
    const box = await createSecretBox(SECRET);
    const sealed = await box.encrypt("sk-x", channelKeyBinding(1));
    await expect(box.decrypt(`v1:${sealed.slice(3)}`, channelKeyBinding(1))).rejects.toThrow();
  });

  test("a sealed value needs a binding", async () => {
    const box = await createSecretBox(SECRET);
    await expect(box.encrypt("sk-x", "")).rejects.toThrow("binding");
  });
});
