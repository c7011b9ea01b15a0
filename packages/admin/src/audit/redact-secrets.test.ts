import { describe, expect, test } from "bun:test";
import { type AuditHashedFields, auditRowHash, canonicalJson, GENESIS_HASH } from "./audit-hash";
import { REDACTED, redactSecrets } from "./redact-secrets";

describe("redactSecrets", () => {
  test("replaces key hashes, sealed keys, passwords, secrets and extra headers at any depth, and keeps the rest", () => {
    const row = {
      id: 3,
      name: "ci",
      keyHash: "ab12",
      previousKeyHash: null,
      keyPrefix: "sk-abcd…wxyz",
      apiKeyEncrypted: "v2:sealed",
      passwordHash: "$argon2id$...",
      hasPassword: true,
      config: { headers: { "x-api-key": "upstream-secret" }, preset: "deepseek" },
      settings: [{ spend_alert_webhook_secret: "v2:sealed" }],
      createdAt: new Date("2026-01-02T03:04:05.678Z"),
    };
    expect(redactSecrets(row)).toEqual({
      id: 3,
      name: "ci",
      keyHash: REDACTED,
      previousKeyHash: null,
      keyPrefix: "sk-abcd…wxyz",
      apiKeyEncrypted: REDACTED,
      passwordHash: REDACTED,
      hasPassword: true,
      config: { headers: REDACTED, preset: "deepseek" },
      settings: [{ spend_alert_webhook_secret: REDACTED }],
      createdAt: "2026-01-02T03:04:05.678Z",
    });
  });
});

describe("audit row hash", () => {
  test("canonical JSON ignores key order, so a row read back from jsonb hashes as it was written", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"e":3,"f":2}]},"b":1}');
    const fields: AuditHashedFields = {
      at: new Date("2026-01-02T03:04:05.678Z"),
      actorKind: "cli",
      actorId: null,
      actorName: "ops",
      sourceAddress: "host",
      action: "token.create",
      objectType: "token",
      objectId: "7",
      before: null,
      after: { name: "ci", id: 7 },
      prevHash: GENESIS_HASH,
    };
    const hash = auditRowHash(fields);
    expect(auditRowHash({ ...fields, after: { id: 7, name: "ci" } })).toBe(hash);
    expect(auditRowHash({ ...fields, actorName: "someone else" })).not.toBe(hash);
    expect(auditRowHash({ ...fields, prevHash: "1".repeat(64) })).not.toBe(hash);
  });
});
