import { describe, expect, test } from "bun:test";
import { grantedLimitsOf, ownerEditErrors, ownerLimitErrors, type TokenLimits } from "./token-entitlements";

const granted: TokenLimits = {
  group: null,
  status: "enabled",
  quotaLimit: 5_000_000,
  expiresAt: new Date("2099-01-01T00:00:00Z"),
  allowedModels: ["gpt-4o-mini", "gpt-4o"],
  allowedIps: ["10.0.0.0/8"],
  rpmLimit: 60,
  tpmLimit: null,
  grantedLimits: {
    quotaLimit: 5_000_000,
    expiresAt: "2099-01-01T00:00:00.000Z",
    allowedModels: ["gpt-4o-mini", "gpt-4o"],
    allowedIps: ["10.0.0.0/8"],
    rpmLimit: 60,
    tpmLimit: null,
  },
};

describe("grantedLimitsOf", () => {
  test("an administrator's write sets a ceiling for each limit it names, and a disable only they undo", () => {
    expect(grantedLimitsOf({ rpmLimit: 10, tpmLimit: null, status: "disabled" })).toEqual({ rpmLimit: 10, tpmLimit: null, disabled: true });
    expect(grantedLimitsOf({ expiresAt: new Date("2099-01-01T00:00:00Z"), allowedIps: [] })).toEqual({ expiresAt: "2099-01-01T00:00:00.000Z", allowedIps: [] });
    expect(grantedLimitsOf({ group: "vip" })).toEqual({});
  });
});

describe("ownerEditErrors", () => {
  test("narrowing every limit, or leaving it as it is, is allowed", () => {
    expect(
      ownerEditErrors(granted, {
        quotaLimit: 1_000_000,
        expiresAt: new Date("2098-01-01T00:00:00Z"),
        allowedModels: ["gpt-4o-mini"],
        allowedIps: ["10.1.0.0/16"],
        rpmLimit: 60,
        tpmLimit: null,
      }),
    ).toEqual({});
  });

  test("lifting or exceeding a ceiling is refused field by field, with the ceiling in the message", () => {
    expect(ownerEditErrors(granted, { quotaLimit: null, allowedIps: ["11.0.0.0/8"], rpmLimit: 61, group: "vip" })).toEqual({
      quotaLimit: ["An administrator capped this token's quota at 5 USD: enter that or less"],
      allowedIps: ["An administrator limited this token to 10.0.0.0/8: every entry must lie within them"],
      rpmLimit: ["An administrator allows this token at most 60 requests per minute: enter that or less"],
      group: ["Only an administrator can change a token's group"],
    });
  });

  test("a token an administrator disabled stays disabled for its owner", () => {
    const disabled: TokenLimits = { ...granted, status: "disabled", grantedLimits: { disabled: true } };
    expect(ownerEditErrors(disabled, { status: "enabled" })).toEqual({ status: ["An administrator disabled this token: only an administrator can enable it"] });
    expect(ownerEditErrors({ ...disabled, grantedLimits: {} }, { status: "enabled" })).toEqual({});
  });
});

describe("ownerLimitErrors", () => {
  const account = { allowedModels: ["gpt-4o-mini"], allowedIps: ["10.0.0.0/8", "2001:db8::/32"], rpmLimit: 60, tpmLimit: 1000 };

  test("a token within the account's limits, or leaving them empty, is not refused", () => {
    expect(ownerLimitErrors(account, { allowedModels: ["gpt-4o-mini"], allowedIps: ["10.1.2.0/24", "2001:db8:1::1"], rpmLimit: 60, tpmLimit: 10 })).toEqual({});
    expect(ownerLimitErrors(account, { allowedModels: [], allowedIps: [], rpmLimit: null, tpmLimit: null })).toEqual({});
  });

  test("each field beyond the account's limits is named, with the entries that lie outside", () => {
    expect(ownerLimitErrors(account, { allowedModels: ["gpt-4o-mini", "gpt-4o"], allowedIps: ["10.0.0.0/7"], rpmLimit: 61, tpmLimit: 1001 })).toEqual({
      allowedModels: ["An administrator limited your account to gpt-4o-mini: gpt-4o cannot be allowed"],
      allowedIps: ["An administrator limited your account to 10.0.0.0/8, 2001:db8::/32: 10.0.0.0/7 lies outside"],
      rpmLimit: ["An administrator allows your account at most 60 requests per minute across all its tokens: enter that or less"],
      tpmLimit: ["An administrator allows your account at most 1000 tokens per minute across all its tokens: enter that or less"],
    });
  });

  test("an account without limits refuses nothing", () => {
    expect(ownerLimitErrors({ allowedModels: [], allowedIps: [], rpmLimit: null, tpmLimit: null }, { allowedModels: ["any"], allowedIps: ["0.0.0.0/0"], rpmLimit: 1e6, tpmLimit: 1e6 })).toEqual({});
  });
});
