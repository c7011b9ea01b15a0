import { describe, expect, test } from "bun:test";
import { readStorageEnvironment } from "@tollgate/db";
import { addressPolicyFrom, oidcSettingsFrom, readServerEnvironment } from "./env";
import { gatewayOptionsFrom } from "./gateway-options";
import { parseServerMode } from "./server-mode";

describe("the server's environment", () => {
  test("single sign-on is off without OIDC_ISSUER, and its settings come from the OIDC_* variables with their defaults", () => {
    expect(oidcSettingsFrom(readServerEnvironment("all", {}))).toBeNull();
    const settings = oidcSettingsFrom(
      readServerEnvironment("all", {
        OIDC_ISSUER: "https://login.example.com/realms/acme",
        OIDC_CLIENT_ID: "tollgate",
        OIDC_CLIENT_SECRET: "s3cret",
        OIDC_ADMIN_GROUPS: "platform-admins, sre ",
        OIDC_ONLY: "true",
        OIDC_PROVIDER_LOGOUT: "true",
      }),
    );
    expect(settings).toEqual({
      issuer: "https://login.example.com/realms/acme",
      clientId: "tollgate",
      clientSecret: "s3cret",
      groupsClaim: "groups",
      adminGroups: ["platform-admins", "sre"],
      displayName: "login.example.com",
      only: true,
      providerLogout: true,
      allowHttpIssuer: false,
    });
    const local = oidcSettingsFrom(readServerEnvironment("all", { OIDC_ISSUER: "http://localhost:8080", OIDC_CLIENT_ID: "c", OIDC_CLIENT_SECRET: "s", OIDC_NAME: "Dev IdP", OIDC_GROUPS_CLAIM: "roles" }));
    expect(local).toMatchObject({ allowHttpIssuer: true, displayName: "Dev IdP", groupsClaim: "roles", only: false, providerLogout: false });
    expect(oidcSettingsFrom(readServerEnvironment("all", { OIDC_ISSUER: "http://idp.example.com", OIDC_CLIENT_ID: "c", OIDC_CLIENT_SECRET: "s" }))!.allowHttpIssuer).toBe(false);
  });

  test("PORT and DATABASE_POOL_SIZE default by mode: 3000 and 10 with the gateway, 3001 and 5 for the console alone", () => {
    for (const mode of ["all", "gateway"] as const) {
      expect(readServerEnvironment(mode, {})).toMatchObject({ PORT: 3000, DATABASE_POOL_SIZE: 10 });
    }
    expect(readServerEnvironment("console", {})).toMatchObject({ PORT: 3001, DATABASE_POOL_SIZE: 5 });
    expect(readServerEnvironment("console", { PORT: "0", DATABASE_POOL_SIZE: "8" })).toMatchObject({ PORT: 0, DATABASE_POOL_SIZE: 8 });
  });

  test("the storage variables are read as the CLI reads them: empty is unset, the data folder defaults to ./data", () => {
    const empty = { DATABASE_URL: "", TOLLGATE_DATA_DIR: "", TOLLGATE_SECRET: "", TOLLGATE_PUBLIC_URL: "", USAGE_SPOOL_DIR: "" };
    const server = readServerEnvironment("all", empty);
    expect(server).toMatchObject({ TOLLGATE_DATA_DIR: "./data" });
    expect(server.DATABASE_URL).toBeUndefined();
    expect(server.TOLLGATE_SECRET).toBeUndefined();
    expect(server.TOLLGATE_PUBLIC_URL).toBeUndefined();
    expect(server.USAGE_SPOOL_DIR).toBeUndefined();
    expect(readStorageEnvironment(empty)).toEqual({ databaseUrl: undefined, dataDir: "./data", secret: undefined, allowPrivateNetworks: true });

    const set = { DATABASE_URL: "postgres://tollgate@db:5432/tollgate", TOLLGATE_DATA_DIR: "/srv/tollgate", TOLLGATE_SECRET: "s".repeat(16) };
    expect(readStorageEnvironment(set)).toEqual({ databaseUrl: set.DATABASE_URL, dataDir: "/srv/tollgate", secret: set.TOLLGATE_SECRET, allowPrivateNetworks: true });
    expect(readServerEnvironment("gateway", set)).toMatchObject(set);
  });

  test("UPSTREAM_ALLOW_PRIVATE_NETWORKS=false reaches the gateway, console and CLI as a policy refusing private networks", () => {
    const strict = { UPSTREAM_ALLOW_PRIVATE_NETWORKS: "false" };
    expect(addressPolicyFrom(readServerEnvironment("all", strict))).toEqual({ allowPrivateNetworks: false });
    expect(gatewayOptionsFrom(readServerEnvironment("gateway", strict)).upstreamAddressPolicy).toEqual({ allowPrivateNetworks: false });
    expect(readStorageEnvironment(strict).allowPrivateNetworks).toBe(false);
    expect(addressPolicyFrom(readServerEnvironment("all", {}))).toEqual({ allowPrivateNetworks: true });
  });

  test("the upstream caps default to 64 MiB a whole answer and 4 MiB an event, and reach the gateway's options", () => {
    const defaults = gatewayOptionsFrom(readServerEnvironment("gateway", {}));
    expect(defaults).toMatchObject({ upstreamMaxBodyBytes: 64 * 1024 * 1024, upstreamMaxEventBytes: 4 * 1024 * 1024, upstreamTimeoutMs: 600_000 });
    const set = gatewayOptionsFrom(readServerEnvironment("gateway", { UPSTREAM_MAX_BODY_BYTES: "1048576", UPSTREAM_MAX_EVENT_BYTES: "65536" }));
    expect(set).toMatchObject({ upstreamMaxBodyBytes: 1_048_576, upstreamMaxEventBytes: 65_536 });
  });

  test("a malformed storage variable is named in a one-line message", () => {
    expect(() => readStorageEnvironment({ DATABASE_URL: "not a url", TOLLGATE_SECRET: "short" })).toThrow(
      /^invalid environment: DATABASE_URL: .+; TOLLGATE_SECRET: .+$/,
    );
  });

  test("the mode is the one argument: none is all-in-one, gateway or console, anything else is refused", () => {
    expect(parseServerMode([])).toBe("all");
    expect(parseServerMode(["gateway"])).toBe("gateway");
    expect(parseServerMode(["console"])).toBe("console");
    expect(parseServerMode(["--gateway-only"])).toBeNull();
    expect(parseServerMode(["gateway", "console"])).toBeNull();
  });
});
