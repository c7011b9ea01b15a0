import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import { runCommand } from "@tollgate/cli/run-command";
import { auditLog, tokens, usageHourly } from "@tollgate/db";
import { createChannelProber } from "@tollgate/upstream";
import { asc, desc, eq } from "drizzle-orm";
import createClient from "openapi-fetch";
import { addTeamMember, cliOperator, createApiKey, createTeam, createTeamSchema, createToken, createUser, createUserSchema, deleteTeam, deleteToken, listTokens } from "../../packages/admin/src/index";
import { createConsole } from "../../apps/console/src/create-console";
import { type GatewayStack, startGatewayStack } from "../helpers/gateway-fixture";
import { generatedApiTypes } from "./generate-api-types";
import type { paths } from "./management-api-types";

// A fresh PGlite takes seconds to migrate on a busy machine: a bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

let stack: GatewayStack;
let server: ReturnType<typeof Bun.serve>;
let apiUrl: string;
let gatewayUrl: string;
let writeKey: string;
let readKey: string;

beforeAll(async () => {
  stack = await startGatewayStack();
  await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["gpt-4o-mini"] });
  const consoleApp = createConsole({ database: stack.database.handle, secretBox: stack.gateway.secretBox, setupCodes: null,
    testChannel: createChannelProber(),
    clientAddress: (request) => server.requestIP(request)?.address ?? null,
  });
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (request) => (await consoleApp.handle(request)) ?? new Response("not found", { status: 404 }) });
  apiUrl = `http://127.0.0.1:${server.port}/api/v1`;
  gatewayUrl = await stack.gateway.listen();
  writeKey = (await createApiKey(stack.database.handle.db, cliOperator, { name: "automation", scope: "write" })).secret;
  readKey = (await createApiKey(stack.database.handle.db, cliOperator, { name: "reporting", scope: "read" })).secret;
});

afterAll(async () => {
  await server?.stop(true);
  await stack?.stop();
});

const db = () => stack.database.handle.db;

function call(method: string, path: string, options: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {}) {
  const key = options.key === undefined ? writeKey : options.key;
  return fetch(`${apiUrl}${path}`, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(options.body === undefined ? {} : { "content-type": "application/json" }), ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
}

describe("management API: the OpenAPI document", () => {
  test("is served at /api/v1/openapi.json and validates as OpenAPI 3.1", async () => {
    const response = await fetch(`${apiUrl}/openapi.json`);
    expect(response.status).toBe(200);
    const document = await response.json();
    expect(document.openapi).toBe("3.1.0");
    await SwaggerParser.validate(structuredClone(document));
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(["/users", "/tokens", "/channels", "/models", "/usage", "/audit"]));
  });

  test("the committed client types are what openapi-typescript generates from it", async () => {
    const committed = await Bun.file(`${import.meta.dir}/management-api-types.ts`).text();
    // When this fails, the API changed: regenerate with `bun test/api/generate-api-types.ts --write`.
    expect(committed).toBe(await generatedApiTypes());
  });
});

describe("management API: a typed client", () => {
  test("creates a token with an OpenAPI-generated client, and the token works on the gateway", async () => {
    const client = createClient<paths>({ baseUrl: apiUrl, headers: { authorization: `Bearer ${writeKey}` } });
    const created = await client.POST("/tokens", { body: { name: "from-the-api", userId: stack.userId, quotaLimit: "5" } });
    expect(created.response.status).toBe(201);
    const secret = created.data!.secret;
    expect(created.data!.token).toMatchObject({ name: "from-the-api", userId: stack.userId });
    const answer = await fetch(`${gatewayUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] }),
    });
    expect(answer.status).toBe(200);
    const listed = await client.GET("/tokens", { params: { query: { userId: stack.userId } } });
    expect(listed.data!.data.map((token) => token.name)).toContain("from-the-api");
  });
});

describe("management API: teams", () => {
  test("creates, reads, changes and deletes a team and its members, with the console's rules, each change audited once", async () => {
    const [last] = await db().select({ id: auditLog.id }).from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    const member = await (await call("POST", "/users", { body: { name: "team-member" } })).json();
    const createdResponse = await call("POST", "/teams", { body: { name: "research", budget: "25" } });
    expect(createdResponse.status).toBe(201);
    const team = await createdResponse.json();
    expect(team).toMatchObject({ name: "research", status: "enabled", budget: { limit: 25_000_000 } });
    const taken = await call("POST", "/teams", { body: { name: "research" } });
    expect(taken.status).toBe(400);
    expect((await taken.json()).error).toMatchObject({ message: 'Team "research" already exists', param: "name" });

    expect((await call("PATCH", `/teams/${team.id}`, { body: { rpmLimit: 30 } })).status).toBe(200);
    const added = await call("POST", `/teams/${team.id}/members`, { body: { userId: member.id, role: "team_admin" } });
    expect(added.status).toBe(201);
    expect(await added.json()).toMatchObject({ teamId: team.id, userId: member.id, role: "team_admin" });
    const members = await (await call("GET", `/teams/${team.id}/members`, { key: readKey })).json();
    expect(members).toMatchObject({ data: [{ userId: member.id, name: "team-member", role: "team_admin", source: "manual" }], nextCursor: null });
    const shown = await (await call("GET", `/teams/${team.id}`, { key: readKey })).json();
    expect(shown).toMatchObject({ id: team.id, rpmLimit: 30, members: [{ userId: member.id }] });
    const listed = await (await call("GET", "/teams", { key: readKey })).json();
    expect(listed.data.map((row: { name: string }) => row.name)).toContain("research");

    expect((await call("DELETE", `/teams/${team.id}/members/${member.id}`)).status).toBe(200);
    const notMember = await call("DELETE", `/teams/${team.id}/members/${member.id}`);
    expect(notMember.status).toBe(404);
    expect((await call("DELETE", `/teams/${team.id}`)).status).toBe(200);
    expect((await call("GET", `/teams/${team.id}`, { key: readKey })).status).toBe(404);

    const rows = (await db().select().from(auditLog).orderBy(asc(auditLog.id))).filter((row) => row.id > (last?.id ?? 0));
    expect(rows.map((row) => row.action)).toEqual(["user.create", "team.create", "team.update", "team.member_add", "team.member_remove", "team.delete"]);
    for (const row of rows) expect(row).toMatchObject({ actorKind: "api_key", actorName: "automation", sourceAddress: "127.0.0.1" });
  });
});

describe("management API: rules", () => {
  test("refuses a request without a key, with an unknown key, and a write with a read key", async () => {
    const missing = await call("GET", "/users", { key: null });
    expect(missing.status).toBe(401);
    expect((await missing.json()).error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });
    expect((await call("GET", "/users", { key: "tgadm-not-a-key" })).status).toBe(401);
    expect((await call("GET", "/users", { key: readKey })).status).toBe(200);
    const write = await call("POST", "/users", { key: readKey, body: { name: "refused" } });
    expect(write.status).toBe(403);
    expect((await write.json()).error.code).toBe("insufficient_scope");
  });

  test("a key limited to a team acts as that team's admin: its tokens, members and usage, and nothing else", async () => {
    const admin = cliOperator;
    const alpha = await createTeam(db(), admin, createTeamSchema.parse({ name: "alpha" }));
    const beta = await createTeam(db(), admin, createTeamSchema.parse({ name: "beta" }));
    const [alphaUser, betaUser, newcomer] = await Promise.all(["alpha-user", "beta-user", "newcomer"].map((name) => createUser(db(), admin, createUserSchema.parse({ name }))));
    await addTeamMember(db(), admin, { teamId: alpha.id, userId: alphaUser!.id, role: "member" });
    await addTeamMember(db(), admin, { teamId: beta.id, userId: betaUser!.id, role: "member" });
    const alphaToken = (await createToken(db(), admin, { name: "alpha-service", userId: alphaUser!.id, teamId: alpha.id })).token;
    const betaToken = (await createToken(db(), admin, { name: "beta-service", userId: betaUser!.id, teamId: beta.id })).token;
    const personal = (await createToken(db(), admin, { name: "alpha-personal", userId: alphaUser!.id })).token;
    const hour = new Date("2026-03-02T10:00:00Z");
    await db().insert(usageHourly).values([
      { hour, userId: alphaUser!.id, tokenId: alphaToken.id, model: "gpt-4o-mini", requests: 3, cost: 300 },
      { hour, userId: betaUser!.id, tokenId: betaToken.id, model: "gpt-4o-mini", requests: 5, cost: 500 },
      { hour, userId: alphaUser!.id, tokenId: personal.id, model: "gpt-4o-mini", requests: 7, cost: 700 },
    ]);

    const refused = await runCommand(["apikey", "create", "--name", "nowhere", "--team", "no-such-team"], { db: db(), secretBox: stack.gateway.secretBox });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toBe('error: unknown team "no-such-team"\n');
    const created = await runCommand(["apikey", "create", "--name", "alpha-lead", "--scope", "write", "--team", "alpha", "--json"], { db: db(), secretBox: stack.gateway.secretBox });
    expect(created.exitCode).toBe(0);
    const teamKey = JSON.parse(created.stdout);
    expect(teamKey).toMatchObject({ teamId: alpha.id, scope: "write" });
    const key = teamKey.secret as string;

    const tokensSeen = await (await call("GET", "/tokens", { key })).json();
    expect(tokensSeen.data.map((token: { name: string }) => token.name)).toEqual(["alpha-service"]);
    expect((await call("GET", `/tokens/${betaToken.id}`, { key })).status).toBe(404);
    expect((await call("GET", `/tokens/${personal.id}`, { key })).status).toBe(404);
    expect((await call("DELETE", `/tokens/${betaToken.id}`, { key })).status).toBe(404);
    expect((await call("PATCH", `/tokens/${alphaToken.id}`, { key, body: { rpmLimit: 7 } })).status).toBe(200);
    expect((await call("POST", `/tokens/${alphaToken.id}/roll`, { key, body: {} })).status).toBe(200);

    const made = await call("POST", "/tokens", { key, body: { name: "alpha-made", userId: alphaUser!.id, teamId: alpha.id } });
    expect(made.status).toBe(201);
    expect((await made.json()).token).toMatchObject({ name: "alpha-made", teamId: alpha.id });
    const outsider = await call("POST", "/tokens", { key, body: { name: "x", userId: betaUser!.id, teamId: alpha.id } });
    expect(outsider.status).toBe(400);
    expect((await outsider.json()).error.message).toBe("The owner of a team token must be a member of the team");
    const otherTeam = await call("POST", "/tokens", { key, body: { name: "x", userId: betaUser!.id, teamId: beta.id } });
    expect(otherTeam.status).toBe(403);
    const noTeam = await call("POST", "/tokens", { key, body: { name: "x", userId: alphaUser!.id } });
    expect(noTeam.status).toBe(403);

    expect((await (await call("GET", "/teams", { key })).json()).data.map((team: { name: string }) => team.name)).toEqual(["alpha"]);
    expect((await call("GET", `/teams/${beta.id}`, { key })).status).toBe(404);
    expect((await call("POST", `/teams/${alpha.id}/members`, { key, body: { userId: newcomer!.id } })).status).toBe(201);
    expect((await call("POST", `/teams/${beta.id}/members`, { key, body: { userId: newcomer!.id } })).status).toBe(404);
    expect((await call("DELETE", `/teams/${alpha.id}/members/${newcomer!.id}`, { key })).status).toBe(200);

    const usage = await (await call("GET", "/usage?from=2026-03-01&to=2026-03-05", { key })).json();
    expect(usage.data).toEqual([expect.objectContaining({ day: "2026-03-02", requests: 3, cost: 300 })]);

    for (const [method, path] of [["PATCH", `/teams/${alpha.id}`], ["DELETE", `/teams/${alpha.id}`], ["GET", "/users"], ["GET", "/audit"], ["GET", "/channels"], ["POST", "/teams"]] as const) {
      const response = await call(method, path, { key, body: method === "GET" || method === "DELETE" ? undefined : { name: "x" } });
      expect(response.status).toBe(403);
      expect((await response.json()).error.code).toBe("team_scope");
    }
    const [last] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    expect(last).toMatchObject({ action: "team.member_remove", actorKind: "api_key", actorName: "alpha-lead" });

    // Deleting the team (once its tokens are gone) deletes its keys, each audited: the key is refused after.
    for (const token of (await listTokens(db(), admin, {})).filter((row) => row.teamId === alpha.id)) await deleteToken(db(), admin, token.id);
    await deleteTeam(db(), admin, alpha.id);
    expect((await call("GET", "/tokens", { key })).status).toBe(401);
    const [keyRow] = await db().select().from(auditLog).where(eq(auditLog.action, "api_key.delete"));
    expect(keyRow).toMatchObject({ objectId: String(teamKey.id), before: { name: "alpha-lead", keyHash: "[redacted]" } });
  });

  test("refuses a body over the console's limit, and a body that is not a JSON object, in its JSON shape", async () => {
    const huge = await call("POST", "/users", { body: { name: "x".repeat(2 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
    expect((await huge.json()).error.code).toBe("request_too_large");
    const notJson = await fetch(`${apiUrl}/users`, { method: "POST", headers: { authorization: `Bearer ${writeKey}`, "content-type": "application/json" }, body: "[1,2" });
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error.code).toBe("invalid_json");
  });

  test("a revoked key is refused from the next request on", async () => {
    const { apiKey, secret } = await createApiKey(db(), cliOperator, { name: "short-lived", scope: "read" });
    expect((await call("GET", "/users", { key: secret })).status).toBe(200);
    expect((await runCommand(["apikey", "revoke", String(apiKey.id)], { db: db(), secretBox: stack.gateway.secretBox })).exitCode).toBe(0);
    expect((await call("GET", "/users", { key: secret })).status).toBe(401);
  });

  test("gives the console's and the CLI's message for the same bad input, in JSON", async () => {
    const response = await call("POST", "/tokens", { body: { name: "t", userId: 999_999 } });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({ message: 'Unknown user "999999"', code: "invalid_input", param: "userId", fieldErrors: { userId: ['Unknown user "999999"'] } });
    const cli = await runCommand(["token", "create", "--user", "999999", "--name", "t"], { db: db(), secretBox: stack.gateway.secretBox });
    expect(cli.stderr).toBe('error: unknown user "999999"\n');
    const invalid = await call("POST", "/users", { body: { name: "" } });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).error.fieldErrors.name).toBeArray();
    expect((await call("GET", "/tokens/424242")).status).toBe(404);
    expect((await call("GET", "/nothing-here")).status).toBe(404);
    expect((await call("PUT", "/users")).status).toBe(405);
  });

  test("replays a create with the same Idempotency-Key and body, and refuses the key with another body", async () => {
    const headers = { "idempotency-key": `create-carol-${crypto.randomUUID()}` };
    const first = await call("POST", "/tokens", { body: { name: "idem", userId: stack.userId }, headers });
    expect(first.status).toBe(201);
    const firstBody = await first.json();
    const again = await call("POST", "/tokens", { body: { name: "idem", userId: stack.userId }, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(firstBody);
    expect(await db().select({ id: tokens.id }).from(tokens).where(eq(tokens.name, "idem"))).toHaveLength(1);
    const other = await call("POST", "/tokens", { body: { name: "idem-2", userId: stack.userId }, headers });
    expect(other.status).toBe(409);
    expect((await other.json()).error.code).toBe("idempotency_key_reused");
  });

  test("pages lists by cursor", async () => {
    for (const name of ["page-a", "page-b", "page-c"]) expect((await call("POST", "/users", { body: { name } })).status).toBe(201);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response = await call("GET", `/users?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      const page = (await response.json()) as { data: { name: string }[]; nextCursor: string | null };
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((user) => user.name));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual(expect.arrayContaining(["page-a", "page-b", "page-c"]));
    expect(new Set(seen).size).toBe(seen.length);
  });

  test("every mutation writes one audit row naming the API key and the client's address", async () => {
    const [last] = await db().select({ id: auditLog.id }).from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    const created = await (await call("POST", "/users", { body: { name: "audited" } })).json();
    expect((await call("PATCH", `/users/${created.id}`, { body: { rpmLimit: 5 } })).status).toBe(200);
    expect((await call("PUT", "/models/gpt-4o-mini/price", { body: { inputPrice: "1", outputPrice: "2" } })).status).toBe(200);
    expect((await call("DELETE", `/users/${created.id}`)).status).toBe(200);
    const rows = (await db().select().from(auditLog).orderBy(asc(auditLog.id))).filter((row) => row.id > (last?.id ?? 0));
    expect(rows.map((row) => row.action)).toEqual(["user.create", "user.update", "price.set", "user.delete"]);
    for (const row of rows) expect(row).toMatchObject({ actorKind: "api_key", actorName: "automation", sourceAddress: "127.0.0.1" });
    const audit = await (await call("GET", `/audit?objectType=user&objectId=${created.id}`, { key: readKey })).json();
    expect(audit.data.map((row: { action: string }) => row.action)).toEqual(["user.delete", "user.update", "user.create"]);
  });
});
