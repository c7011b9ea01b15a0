import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { tokens } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type GatewayStack, startGatewayStack } from "../helpers/gateway-fixture";
import { type ConsoleUnderTest, type JsonCli, jsonCliOn, rejection, type SignedInUser, startConsole } from "./console-fixture";

// For tests and hooks of this file (the preload's setDefaultTimeout does not reach them): a fresh PGlite
// takes seconds to migrate on a busy machine. A bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

let stack: GatewayStack;
let harness: ConsoleUnderTest;
let admin: SignedInUser;
let alice: SignedInUser;
let cli: JsonCli;

beforeAll(async () => {
  stack = await startGatewayStack();
  await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["gpt-4o-mini"] });
  await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["vip-model"], groups: ["vip"] });
  harness = await startConsole({}, stack.database);
  admin = await harness.signedInUser({ name: "root", role: "admin" });
  alice = await harness.signedInUser({ name: "alice", group: "default" });
  cli = await jsonCliOn(stack.database);
});

afterAll(async () => {
  await harness?.close();
  await stack?.stop();
});

function chat(secret: string, model: string) {
  return stack.gateway.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
      body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
    }),
  );
}

describe("groups, from the console to the gateway", () => {
  test("a default-group user cannot make a token that reaches the vip group's models", async () => {
    expect((await rejection(alice.caller.tokens.create({ name: "vip", group: "vip" }))).code).toBe("FORBIDDEN");
    const own = await alice.caller.tokens.create({ name: "own" });
    expect((await rejection(alice.caller.tokens.update({ id: own.token.id, group: "vip" }))).code).toBe("FORBIDDEN");
    expect((await chat(own.secret, "gpt-4o-mini")).status).toBe(200);
    const vipCall = await chat(own.secret, "vip-model");
    expect(vipCall.status).toBe(404);
    expect(((await vipCall.json()) as { error: { code: string } }).error.code).toBe("model_not_found");
  });

  test("a token an admin puts in the vip group reaches the vip models", async () => {
    const issued = await admin.caller.tokens.create({ name: "vip", userId: alice.id, group: "vip" });
    expect((await chat(issued.secret, "vip-model")).status).toBe(200);
  });
});

describe("ceilings the CLI sets hold in the console", () => {
  test("a token the CLI creates: its owner may narrow each limit but not lift or exceed it", async () => {
    const expires = new Date(Date.now() + 7 * 86_400_000);
    const created = await cli(
      "token", "create", "--user", "alice", "--name", "from-cli", "--quota", "5", "--models", "gpt-4o-mini",
      "--ip", "10.0.0.0/8", "--rpm", "60", "--tpm", "1000", "--expires", expires.toISOString(), "--group", "vip",
    );
    const id = created.id as number;
    const narrowed = await alice.caller.tokens.update({
      id,
      quotaLimit: "2",
      allowedIps: ["10.1.0.0/16"],
      rpmLimit: 30,
      tpmLimit: 500,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(narrowed).toMatchObject({ quotaLimit: 2_000_000, allowedIps: ["10.1.0.0/16"], rpmLimit: 30, tpmLimit: 500 });
    const lifted = await rejection(
      alice.caller.tokens.update({ id, quotaLimit: null, allowedModels: [], allowedIps: [], rpmLimit: null, tpmLimit: null, expiresAt: null, group: null }),
    );
    expect(lifted.code).toBe("FORBIDDEN");
    expect(Object.keys(lifted.fieldErrors ?? {}).sort()).toEqual(["allowedIps", "allowedModels", "expiresAt", "group", "quotaLimit", "rpmLimit", "tpmLimit"]);
    const exceeded = await rejection(
      alice.caller.tokens.update({ id, quotaLimit: "6", allowedModels: ["gpt-4o"], allowedIps: ["11.0.0.0/8"], rpmLimit: 61, tpmLimit: 1001 }),
    );
    expect(Object.keys(exceeded.fieldErrors ?? {}).sort()).toEqual(["allowedIps", "allowedModels", "quotaLimit", "rpmLimit", "tpmLimit"]);
    const [row] = await stack.database.handle.db.select().from(tokens).where(eq(tokens.id, id));
    expect(row).toMatchObject({ quotaLimit: 2_000_000, allowedModels: ["gpt-4o-mini"], rpmLimit: 30, tpmLimit: 500, group: "vip" });
  });

  test("the CLI's token update sets the per-minute ceilings, and `none` lifts them", async () => {
    const { token } = await alice.caller.tokens.create({ name: "own" });
    expect((await alice.caller.tokens.update({ id: token.id, rpmLimit: 500 })).rpmLimit).toBe(500);
    await cli("token", "update", String(token.id), "--rpm", "30");
    expect((await rejection(alice.caller.tokens.update({ id: token.id, rpmLimit: 31 }))).fieldErrors).toEqual({
      rpmLimit: ["An administrator allows this token at most 30 requests per minute: enter that or less"],
    });
    expect((await alice.caller.tokens.update({ id: token.id, rpmLimit: 10 })).rpmLimit).toBe(10);
    await cli("token", "update", String(token.id), "--rpm", "none");
    expect((await alice.caller.tokens.update({ id: token.id, rpmLimit: null })).rpmLimit).toBeNull();
  });

  test("a token the CLI disables stays disabled for its owner until the CLI enables it", async () => {
    const { token } = await alice.caller.tokens.create({ name: "own" });
    await cli("token", "disable", String(token.id));
    expect((await rejection(alice.caller.tokens.update({ id: token.id, status: "enabled" }))).fieldErrors).toEqual({
      status: ["An administrator disabled this token: only an administrator can enable it"],
    });
    await cli("token", "enable", String(token.id));
    expect((await alice.caller.tokens.update({ id: token.id, status: "disabled" })).status).toBe("disabled");
    expect((await alice.caller.tokens.update({ id: token.id, status: "enabled" })).status).toBe("enabled");
  });
});
