import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { auditAnchor, auditLog, errorCauses, tokens } from "@tollgate/db";
import { asc, desc, eq, sql } from "drizzle-orm";
import { cliOperator, createToken, purgeAuditLog, setAuditRetention, verifyAuditChain } from "../../packages/admin/src/index";
import { startAuditPurge } from "../../apps/server/src/audit-purge-job";
import { waitFor } from "../helpers/gateway-fixture";
import { type Cli, cliOn, type ConsoleUnderTest, rejection, type SignedInUser, startConsole } from "../console/console-fixture";
import { type FakeMcpServer, startFakeMcpServer } from "../helpers/fake-mcp-server";

// A fresh PGlite takes seconds to migrate on a busy machine: a bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

let harness: ConsoleUnderTest;
let admin: SignedInUser;
let cli: Cli;

beforeAll(async () => {
  harness = await startConsole();
  admin = await harness.signedInUser({ name: "root", role: "admin" });
  await harness.signedInUser({ name: "alice" });
  cli = await cliOn(harness.database);
});

afterAll(() => harness.close());

const db = () => harness.database.handle.db;

async function auditRows() {
  return db().select().from(auditLog).orderBy(asc(auditLog.id));
}

/** Runs `change` and returns the audit rows it added. */
async function rowsAddedBy(change: () => Promise<unknown>) {
  const [last] = await db().select({ id: auditLog.id }).from(auditLog).orderBy(desc(auditLog.id)).limit(1);
  await change();
  return (await auditRows()).filter((row) => row.id > (last?.id ?? 0));
}

/** Runs statements with the append-only trigger off, as someone with the database's owner rights could. */
async function tamper(statement: ReturnType<typeof sql>) {
  await db().transaction(async (transaction) => {
    await transaction.execute(sql`alter table audit_log disable trigger audit_log_append_only`);
    await transaction.execute(statement);
    await transaction.execute(sql`alter table audit_log enable trigger audit_log_append_only`);
  });
}

describe("audit log", () => {
  test("a token created in the console writes one row naming the user, the address and the token, without its secret", async () => {
    const caller = harness.console.createCaller({ headers: { cookie: admin.cookie }, clientIp: "203.0.113.7" });
    let secret = "";
    const added = await rowsAddedBy(async () => {
      secret = (await caller.tokens.create({ name: "console-made" })).secret;
    });
    expect(added).toHaveLength(1);
    const row = added[0]!;
    expect(row).toMatchObject({ actorKind: "user", actorId: admin.id, actorName: "root", sourceAddress: "203.0.113.7", action: "token.create", objectType: "token" });
    expect(row.before).toBeNull();
    expect(row.after).toMatchObject({ name: "console-made", keyHash: "[redacted]" });
    const [stored] = await db().select({ keyHash: tokens.keyHash }).from(tokens).where(eq(tokens.id, Number(row.objectId)));
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(JSON.stringify(row)).not.toContain(stored!.keyHash);
  });

  test("a token created with the CLI writes one row naming the CLI", async () => {
    const added = await rowsAddedBy(() => cli("token", "create", "--user", "alice", "--name", "cli-made"));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ actorKind: "cli", actorId: null, action: "token.create", objectType: "token" });
  });

  test("every kind of change writes one row with the fields before and after, channel keys redacted", async () => {
    const channelAdded = await rowsAddedBy(() =>
      cli("channel", "add", "--name", "up", "--base-url", "https://api.example.com/v1", "--key", "sk-upstream-secret-value", "--models", "gpt-x"),
    );
    expect(channelAdded.map((row) => row.action)).toEqual(["channel.create"]);
    expect(JSON.stringify(channelAdded[0])).not.toContain("sk-upstream-secret-value");
    expect(channelAdded[0]!.after).toMatchObject({ apiKeyEncrypted: "[redacted]", name: "up" });
    const changes: [string[], string][] = [
      [["channel", "disable", channelAdded[0]!.objectId!], "channel.update"],
      [["model", "price", "--model", "gpt-x", "--input", "1", "--output", "2"], "price.set"],
      [["user", "create", "--name", "bob"], "user.create"],
      [["user", "topup", "bob", "--amount", "5"], "user.top_up"],
      [["user", "update", "bob", "--rpm", "10"], "user.update"],
      [["alerts", "settings", "--webhook-secret", "a-webhook-secret-of-length"], "settings.update_alerts"],
      [["audit", "retention", "--days", "30"], "settings.update_audit_retention"],
    ];
    for (const [argv, action] of changes) {
      const added = await rowsAddedBy(async () => expect((await cli(...argv)).stderr).toBe(""));
      expect(added.map((row) => row.action)).toEqual([action]);
    }
    const disabled = (await auditRows()).find((row) => row.action === "channel.update")!;
    expect(disabled.before).toMatchObject({ status: "enabled" });
    expect(disabled.after).toMatchObject({ status: "disabled" });
    const alerts = (await auditRows()).find((row) => row.action === "settings.update_alerts")!;
    expect(JSON.stringify(alerts)).not.toContain("a-webhook-secret-of-length");
  });

  test("a refused change writes no row", async () => {
    const added = await rowsAddedBy(() => cli("user", "create", "--name", "bob"));
    expect(added).toHaveLength(0);
  });

  test("the table refuses UPDATE and DELETE", async () => {
    const refusal = async (statement: ReturnType<typeof sql>) => {
      try {
        await db().execute(statement);
      } catch (error) {
        return errorCauses(error).map((cause) => (cause as Error).message).join(" / ");
      }
      return "not refused";
    };
    expect(await refusal(sql`update audit_log set action = 'x'`)).toContain("audit_log is append-only (UPDATE refused)");
    expect(await refusal(sql`delete from audit_log`)).toContain("audit_log is append-only (DELETE refused)");
  });

  test("concurrent writers still form one chain", async () => {
    await Promise.all(Array.from({ length: 8 }, (_, index) => createToken(db(), cliOperator, { name: `parallel-${index}`, userId: admin.id })));
    expect(await verifyAuditChain(db())).toMatchObject({ ok: true, firstBroken: null });
    const rows = await auditRows();
    expect(new Set(rows.map((row) => row.prevHash)).size).toBe(rows.length);
  });

  test("audit verify passes an intact log and names an edited row", async () => {
    const intact = await cli("audit", "verify");
    expect(intact.exitCode).toBe(0);
    expect(intact.stdout).toMatch(/^audit log intact: \d+ rows chain correctly\n$/);
    const victim = (await auditRows())[2]!;
    await tamper(sql`update audit_log set actor_name = 'someone else' where id = ${victim.id}`);
    const broken = await cli("audit", "verify");
    expect(broken.exitCode).toBe(1);
    expect(broken.stderr).toContain(`audit log broken at row ${victim.id}: its hash does not match its fields`);
    await tamper(sql`update audit_log set actor_name = ${victim.actorName} where id = ${victim.id}`);
    expect((await cli("audit", "verify")).exitCode).toBe(0);
  });

  test("audit verify names the row after a deleted one", async () => {
    const rows = await auditRows();
    const victim = rows[4]!;
    const next = rows[5]!;
    await tamper(sql`delete from audit_log where id = ${victim.id}`);
    const broken = await cli("audit", "verify");
    expect(broken.exitCode).toBe(1);
    expect(broken.stderr).toContain(`audit log broken at row ${next.id}: its prev_hash is not the previous row's hash`);
  });
});

describe("audit rows for teams, MCP servers and settings", () => {
  let mcpUpstream: FakeMcpServer;
  beforeAll(async () => {
    mcpUpstream = await startFakeMcpServer({ name: "docs" });
  });
  afterAll(() => mcpUpstream.close());

  /** Runs the CLI command and returns the actions of the rows it added (failing on an error message). */
  async function actionsOfCli(...argv: string[]) {
    const added = await rowsAddedBy(async () => expect((await cli(...argv)).stderr).toBe(""));
    return added.map((row) => row.action);
  }

  test("team, membership, team token, MCP server, token MCP access and log retention changes by the CLI each write one row", async () => {
    await cli("user", "create", "--name", "carol");
    expect(await actionsOfCli("team", "create", "--name", "platform", "--budget", "50")).toEqual(["team.create"]);
    expect(await actionsOfCli("team", "update", "platform", "--rpm", "60")).toEqual(["team.update"]);
    expect(await actionsOfCli("team", "member", "add", "platform", "--user", "carol", "--role", "member")).toEqual(["team.member_add"]);
    expect(await actionsOfCli("team", "member", "add", "platform", "--user", "carol", "--role", "team_admin")).toEqual(["team.member_update"]);
    expect(await actionsOfCli("token", "create", "--user", "carol", "--team", "platform", "--name", "team-made")).toEqual(["token.create"]);
    expect(await actionsOfCli("mcp", "add", "--name", "docs", "--url", mcpUpstream.url, "--credential", "mcp-credential-never-logged")).toEqual(["mcp_server.create"]);
    expect(await actionsOfCli("mcp", "test", "docs")).toEqual(["mcp_server.test"]);
    const teamToken = (await auditRows()).findLast((row) => row.action === "token.create")!;
    expect(teamToken.after).toMatchObject({ name: "team-made", teamId: expect.any(Number) });
    expect(await actionsOfCli("token", "update", teamToken.objectId!, "--mcp-servers", "docs")).toEqual(["token.mcp_access"]);
    expect(await actionsOfCli("logs", "retention", "--days", "30")).toEqual(["settings.update_log_retention"]);
    expect(await actionsOfCli("mcp", "remove", "docs")).toEqual(["mcp_server.delete"]);
    expect(await actionsOfCli("token", "delete", teamToken.objectId!)).toEqual(["token.delete"]);
    expect(await actionsOfCli("team", "member", "remove", "platform", "--user", "carol")).toEqual(["team.member_remove"]);
    expect(await actionsOfCli("team", "delete", "platform")).toEqual(["team.delete"]);

    const rows = await auditRows();
    const find = (action: string) => rows.findLast((row) => row.action === action)!;
    expect(find("team.update")).toMatchObject({ actorKind: "cli", objectType: "team", before: { rpmLimit: null }, after: { rpmLimit: 60, name: "platform" } });
    expect(find("team.member_update")).toMatchObject({ objectType: "team_member", before: { role: "member" }, after: { role: "team_admin" } });
    expect(find("token.mcp_access")).toMatchObject({ before: { mcpServers: [] }, after: { mcpServers: ["docs"] } });
    expect(find("settings.update_log_retention")).toMatchObject({ before: { days: 90 }, after: { days: 30 } });
    expect(find("mcp_server.test").after).toMatchObject({ ok: true, error: null, tools: 3 });
    expect(find("mcp_server.create").after).toMatchObject({ name: "docs", credentialEncrypted: "[redacted]" });
    expect(JSON.stringify(rows)).not.toContain("mcp-credential-never-logged");
  });

  test("team changes in the console write one row each naming the signed-in user and their address", async () => {
    const caller = harness.console.createCaller({ headers: { cookie: admin.cookie }, clientIp: "203.0.113.8" });
    const dave = await harness.signedInUser({ name: "dave" });
    let teamId = 0;
    const created = await rowsAddedBy(async () => {
      teamId = (await caller.teams.create({ name: "console-team" })).id;
    });
    const membership = await rowsAddedBy(() => caller.teams.addMember({ teamId, userId: dave.id, role: "member" }));
    const removal = await rowsAddedBy(() => caller.teams.removeMember({ teamId, userId: dave.id }));
    const retention = await rowsAddedBy(() => caller.logRetention.update({ days: 45 }));
    const deleted = await rowsAddedBy(() => caller.teams.delete({ id: teamId }));
    for (const [added, action] of [
      [created, "team.create"],
      [membership, "team.member_add"],
      [removal, "team.member_remove"],
      [retention, "settings.update_log_retention"],
      [deleted, "team.delete"],
    ] as const) {
      expect(added).toHaveLength(1);
      expect(added[0]).toMatchObject({ action, actorKind: "user", actorId: admin.id, actorName: "root", sourceAddress: "203.0.113.8" });
    }
  });

  test("a refused team change writes no row", async () => {
    const user = await harness.signedInUser({ name: "erin" });
    const added = await rowsAddedBy(async () => expect(await rejection(user.caller.teams.create({ name: "not-allowed" }))).toMatchObject({ code: "FORBIDDEN" }));
    expect(added).toHaveLength(0);
  });
});

describe("the CLI's audit and API key commands", () => {
  test("audit list filters and pages; apikey create prints the key once and is itself audited", async () => {
    const created = await cli("apikey", "create", "--name", "ci-bot", "--scope", "write", "--json");
    expect(created.exitCode).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key).toMatchObject({ name: "ci-bot", scope: "write", teamId: null });
    expect(key.secret).toStartWith("tgadm-");
    const listed = await cli("apikey", "list");
    expect(listed.stdout).toContain("ci-bot");
    expect(listed.stdout).not.toContain(key.secret);
    const first = JSON.parse((await cli("audit", "list", "--action", "api_key.", "--limit", "1", "--json")).stdout);
    expect(first.items).toHaveLength(1);
    expect(first.items[0]).toMatchObject({ action: "api_key.create", actorKind: "cli", after: { keyHash: "[redacted]", name: "ci-bot" } });
    expect(JSON.stringify(first)).not.toContain(key.secret);
    const tokensPage = JSON.parse((await cli("audit", "list", "--action", "token.create", "--limit", "2", "--json")).stdout);
    expect(tokensPage.nextCursor).not.toBeNull();
    const next = JSON.parse((await cli("audit", "list", "--action", "token.create", "--limit", "2", "--cursor", tokensPage.nextCursor, "--json")).stdout);
    expect(next.items[0].id).toBeLessThan(tokensPage.items[1].id);
    const refused = await cli("audit", "list", "--limit", "0");
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("--limit");
  });
});

describe("audit retention", () => {
  test("the purge keeps verify passing, and deleting the oldest kept row is still detected", async () => {
    const fresh = await startConsole();
    try {
      const freshDb = fresh.database.handle.db;
      // The first administrator, made on the first-run page, is the log's first row, naming itself.
      const setupCode = (await fresh.setupCode())!;
      await fresh.anonymous({ clientIp: "198.51.100.4" }).auth.setup({ setupCode, name: "founder", password: "a-long-password" });
      const [first] = await freshDb.select().from(auditLog).orderBy(asc(auditLog.id)).limit(1);
      expect(first).toMatchObject({ action: "user.create_first_administrator", actorKind: "user", actorName: "founder", sourceAddress: "198.51.100.4", after: { passwordHash: "[redacted]" } });
      const owner = { id: first!.actorId! };
      for (let index = 0; index < 5; index += 1) await createToken(freshDb, cliOperator, { name: `t${index}`, userId: owner.id });
      await setAuditRetention(freshDb, cliOperator, { days: 1 });
      const rows = await freshDb.select().from(auditLog).orderBy(asc(auditLog.id));
      // Three days later every row is past the retention: all but the newest are purged.
      const purged = await purgeAuditLog(freshDb, new Date(Date.now() + 3 * 86_400_000));
      expect(purged.deleted).toBe(rows.length - 1);
      const [anchor] = await freshDb.select().from(auditAnchor);
      expect(anchor).toMatchObject({ rowId: rows.at(-1)!.id, prevHash: rows.at(-1)!.prevHash });
      expect(await verifyAuditChain(freshDb)).toMatchObject({ ok: true, checked: 1 });
      await createToken(freshDb, cliOperator, { name: "after-purge", userId: owner.id });
      expect(await verifyAuditChain(freshDb)).toMatchObject({ ok: true, checked: 2 });
      await freshDb.transaction(async (transaction) => {
        await transaction.execute(sql`alter table audit_log disable trigger audit_log_append_only`);
        await transaction.execute(sql`delete from audit_log where id = ${rows.at(-1)!.id}`);
        await transaction.execute(sql`alter table audit_log enable trigger audit_log_append_only`);
      });
      expect((await verifyAuditChain(freshDb)).firstBroken?.reason).toContain(`the oldest kept row should be ${rows.at(-1)!.id}`);
    } finally {
      await fresh.close();
    }
  });

  test("the server's purge job deletes rows past the retention on its own", async () => {
    const fresh = await startConsole();
    const logged: string[] = [];
    const freshDb = fresh.database.handle.db;
    const owner = await fresh.signedInUser({ name: "owner", role: "admin" });
    for (let index = 0; index < 3; index += 1) await createToken(freshDb, cliOperator, { name: `t${index}`, userId: owner.id });
    await setAuditRetention(freshDb, cliOperator, { days: 1 });
    // Started as the server starts it, on a database that already holds rows past the retention.
    const job = startAuditPurge({ db: freshDb, log: (_level, message) => logged.push(message), intervalMs: 20, now: () => new Date(Date.now() + 3 * 86_400_000) });
    try {
      await waitFor(async () => (await freshDb.select().from(auditLog)).length === 1, "the purge job to keep only the newest row");
      expect(logged).toContain("audit log purged past its retention");
      expect(await verifyAuditChain(freshDb)).toMatchObject({ ok: true });
    } finally {
      // A pass still running settles before the database it uses is closed.
      await job.stop();
      await fresh.close();
    }
  });
});

describe("the console's audit page", () => {
  test("lists the log filtered by actor, action and object, newest first, for administrators only", async () => {
    const caller = harness.console.createCaller({ headers: { cookie: admin.cookie } });
    await caller.tokens.create({ name: "listed" });
    const page = await caller.audit.list({ actor: "roo", action: "token.", objectType: "token", limit: 50 });
    expect(page.items.length).toBeGreaterThan(0);
    for (const row of page.items) expect(row).toMatchObject({ actorName: "root", objectType: "token" });
    expect(page.items.map((row) => row.id)).toEqual([...page.items.map((row) => row.id)].sort((left, right) => right - left));
    const future = await caller.audit.list({ from: new Date(Date.now() + 3_600_000), limit: 50 });
    expect(future.items).toHaveLength(0);
    const user = await harness.signedInUser({ name: "not-an-admin" });
    expect(await rejection(user.caller.audit.list({ limit: 50 }))).toMatchObject({ code: "FORBIDDEN", message: "Only an administrator may do this" });
  });

  test("exports the filtered log as CSV, and refuses users", async () => {
    const download = (cookie: string) => harness.console.handle(new Request("http://localhost/export/audit.csv?action=token.create", { headers: { cookie } }));
    const response = (await download(admin.cookie))!;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const lines = (await response.text()).split("\r\n").filter((line) => line !== "");
    expect(lines[0]).toBe("id,at,actor_kind,actor_id,actor_name,source_address,action,object_type,object_id,before,after,prev_hash,hash");
    const created = (await auditRows()).filter((row) => row.action === "token.create");
    expect(lines).toHaveLength(1 + created.length);
    expect(lines.slice(1).every((line) => line.split(",")[6] === "token.create")).toBe(true);
    const user = await harness.signedInUser({ name: "csv-user" });
    expect((await download(user.cookie))!.status).toBe(403);
  });

  test("creates an API key shown once, lists it without its secret or hash, and audits it as the signed-in user", async () => {
    const caller = harness.console.createCaller({ headers: { cookie: admin.cookie }, clientIp: "192.0.2.9" });
    const { apiKey, secret } = await caller.apiKeys.create({ name: "console-made", scope: "read" });
    expect(secret).toStartWith("tgadm-");
    const listed = await caller.apiKeys.list();
    expect(listed.find((key) => key.id === apiKey.id)).toMatchObject({ name: "console-made", scope: "read", revokedAt: null });
    expect(JSON.stringify(listed)).not.toContain(secret.slice(10));
    expect(listed.some((key) => "keyHash" in key)).toBe(false);
    const [row] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    expect(row).toMatchObject({ action: "api_key.create", actorKind: "user", actorName: "root", sourceAddress: "192.0.2.9", after: { keyHash: "[redacted]" } });
    await caller.apiKeys.revoke({ id: apiKey.id });
    expect((await caller.apiKeys.list()).find((key) => key.id === apiKey.id)!.revokedAt).not.toBeNull();
  });

  test("changes the retention and says whether the chain is intact", async () => {
    const caller = harness.console.createCaller({ headers: { cookie: admin.cookie } });
    await caller.audit.setRetention({ days: 90 });
    expect(await caller.audit.retention()).toEqual({ days: 90 });
    const [last] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    expect(last).toMatchObject({ action: "settings.update_audit_retention", actorName: "root", after: { days: 90 } });
    expect(typeof (await caller.audit.verify()).ok).toBe("boolean");
  });
});
