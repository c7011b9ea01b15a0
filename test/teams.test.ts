import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { addTeamMember, AdminError, createToken, deleteToken, getTeam, listTeams, searchTokens, teamLogs, updateTeam } from "../packages/admin/src/index";
import { runCommand } from "@tollgate/cli/run-command";
import { teams } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { usePostgres } from "./helpers/fresh-database";
import { type GatewayStack, type GatewayUnderTest, startGatewayStack, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";
import { twoGatewaysForBlock } from "./helpers/two-gateways";
import { seedMeteredModel } from "./helpers/metered-model";

// A bound on hangs for the set-up (migrations, two instances), not a tuned timing.
setDefaultTimeout(60_000);

/** Every answer of the fake upstream here is 10 prompt + 1000 completion tokens: 1000 micro-USD at 1 USD per 1M output tokens. */
const CALL_COST = 1000;

let stack: GatewayStack;

function chat(gateway: GatewayUnderTest, key: string, model = "metered") {
  return gateway.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ model, max_tokens: 1000, messages: [{ role: "user", content: "hi" }] }),
    }),
  );
}

/** What an admin operation refused with (undefined when it did not refuse). */
function refusalOf(operation: Promise<unknown>): Promise<unknown> {
  return operation.then(
    () => undefined,
    (error: unknown) => error,
  );
}

async function errorOf(response: Response) {
  return ((await response.json()) as { error: { code: string; message: string } }).error;
}

function cli(argv: string[], target: { database: { handle: GatewayStack["database"]["handle"] }; gateway?: GatewayUnderTest; first?: GatewayUnderTest }) {
  const secretBox = (target.gateway ?? target.first)!.secretBox;
  return runCommand(argv, { db: target.database.handle.db, secretBox });
}

async function teamId(name: string): Promise<number> {
  const [row] = await stack.database.handle.db.select({ id: teams.id }).from(teams).where(eq(teams.name, name));
  return row!.id;
}

beforeAll(async () => {
  stack = await startGatewayStack();
  stack.upstream.setDefault({ kind: "ok", promptTokens: 10, completionTokens: 1000 });
  await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["metered", "other"] });
  await stack.seed.price("metered", 0, 1);
  await stack.seed.price("other", 0, 1);
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

describe("teams from the CLI", () => {
  test("team create, member add, token create --team, show and list report the team, its members and its tokens", async () => {
    const alice = await stack.seed.user({ name: "cli-alice" });
    const created = await cli(["team", "create", "--name", "cli-team", "--budget", "5", "--period", "monthly", "--rpm", "100", "--json"], stack);
    expect(created.exitCode).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: "cli-team", rpm: 100, budget: { period: "monthly", limit: "5.000000" } });
    expect((await cli(["team", "member", "add", "cli-team", "--user", "cli-alice", "--role", "team_admin"], stack)).exitCode).toBe(0);
    const token = await cli(["token", "create", "--user", "cli-alice", "--name", "svc", "--team", "cli-team", "--json"], stack);
    expect(token.exitCode).toBe(0);
    expect(JSON.parse(token.stdout).teamId).toBe(await teamId("cli-team"));
    const shown = JSON.parse((await cli(["team", "show", "cli-team", "--json"], stack)).stdout);
    expect(shown.members).toEqual([{ userId: alice.id, name: "cli-alice", role: "team_admin", source: "manual" }]);
    expect(shown.tokens).toBe(1);
    expect((await cli(["team", "list"], stack)).stdout).toContain("cli-team");
  });

  test("a bad role, an unknown team and deleting a team that still has tokens are refused with exit code 2", async () => {
    await stack.seed.user({ name: "cli-bob" });
    await cli(["team", "create", "--name", "cli-refusals"], stack);
    const badRole = await cli(["team", "member", "add", "cli-refusals", "--user", "cli-bob", "--role", "owner"], stack);
    expect(badRole).toMatchObject({ exitCode: 2 });
    expect(badRole.stderr).toContain("--role");
    expect((await cli(["token", "create", "--user", "cli-bob", "--name", "x", "--team", "no-such-team"], stack)).stderr).toContain('unknown team "no-such-team"');
    await cli(["token", "create", "--user", "cli-bob", "--name", "x", "--team", "cli-refusals"], stack);
    const refused = await cli(["team", "delete", "cli-refusals"], stack);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("still has 1 token");
    expect((await cli(["team", "member", "remove", "cli-refusals", "--user", "cli-bob"], stack)).stderr).toContain("not a member");
  });
});

describe("a team's budget and limits in the gateway", () => {
  test("the team budget is shared by the tokens of different members, refuses with 429 naming the team, and the headers name the tighter limit", async () => {
    const [first, second] = [await stack.seed.user(), await stack.seed.user()];
    await cli(["team", "create", "--name", "budget-team", "--budget", String((3 * CALL_COST) / 1e6)], stack);
    const id = await teamId("budget-team");
    const one = await stack.seed.token({ userId: first.id, teamId: id });
    const two = await stack.seed.token({ userId: second.id, teamId: id, quotaLimit: 100 * CALL_COST });
    const answers = [await chat(stack.gateway, one.secret), await chat(stack.gateway, two.secret), await chat(stack.gateway, one.secret)];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    // The token's own quota (0.1 USD) is wider than what is left of the team's: the team's is reported.
    expect(answers[1]!.headers.get("x-tollgate-budget-scope")).toBe("team");
    expect(answers[1]!.headers.get("x-tollgate-budget-remaining")).toBe("0.001000");
    const refused = await chat(stack.gateway, two.secret);
    expect(refused.status).toBe(429);
    expect((await errorOf(refused)).message).toContain("team budget");
    await stack.gateway.services.usage.flush();
    const [row] = await stack.database.handle.db.select().from(teams).where(eq(teams.id, id));
    expect(row!.usedTotal).toBe(3 * CALL_COST);
  });

  test("a personal budget tighter than the team's is the one that refuses and that the headers name", async () => {
    const member = await stack.seed.user({ budgetLimit: CALL_COST });
    await cli(["team", "create", "--name", "wide-team", "--budget", "1"], stack);
    const token = await stack.seed.token({ userId: member.id, teamId: await teamId("wide-team") });
    const first = await chat(stack.gateway, token.secret);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-tollgate-budget-scope")).toBe("user");
    const refused = await chat(stack.gateway, token.secret);
    expect(refused.status).toBe(429);
    expect((await errorOf(refused)).message).toContain("account's spending budget");
  });

  test("the team's model list and its requests per minute bind all of its tokens together, named in the refusal", async () => {
    const member = await stack.seed.user();
    await cli(["team", "create", "--name", "limited-team", "--models", "metered", "--rpm", "3"], stack);
    const id = await teamId("limited-team");
    const one = await stack.seed.token({ userId: member.id, teamId: id });
    const two = await stack.seed.token({ userId: member.id, teamId: id });
    const listed = await stack.gateway.handle(new Request("http://gateway.test/v1/models", { headers: { authorization: `Bearer ${one.secret}` } }));
    expect(((await listed.json()) as { data: { id: string }[] }).data.map((model) => model.id)).toEqual(["metered"]);
    const notAllowed = await chat(stack.gateway, one.secret, "other");
    expect(notAllowed.status).toBe(403);
    expect((await errorOf(notAllowed)).message).toContain("team");
    // The listing and the refused call above were counted in the minute: one more is let in, by the other token, then none.
    expect((await chat(stack.gateway, two.secret)).status).toBe(200);
    const limited = await chat(stack.gateway, one.secret);
    expect(limited.status).toBe(429);
    expect((await errorOf(limited)).message).toContain("this API key's team");
  });

  test("the team's tokens per minute are one count for all of its tokens, and its IP list binds them", async () => {
    const member = await stack.seed.user();
    await cli(["team", "create", "--name", "tpm-team", "--tpm", String(2 * 1010)], stack);
    const id = await teamId("tpm-team");
    const one = await stack.seed.token({ userId: member.id, teamId: id });
    const two = await stack.seed.token({ userId: member.id, teamId: id });
    expect((await chat(stack.gateway, one.secret)).status).toBe(200);
    expect((await chat(stack.gateway, two.secret)).status).toBe(200);
    const limited = await chat(stack.gateway, one.secret);
    expect(limited.status).toBe(429);
    expect((await errorOf(limited)).message).toContain("tokens per minute");
    await cli(["team", "create", "--name", "ip-team", "--ips", "198.51.100.0/24"], stack);
    const fenced = await stack.seed.token({ userId: member.id, teamId: await teamId("ip-team") });
    const refused = await chat(stack.gateway, fenced.secret);
    expect(refused.status).toBe(403);
    expect((await errorOf(refused)).message).toContain("this API key's team");
  });

  test("a team update reaches the warm gateway at once (NOTIFY), and a disabled team's tokens are refused", async () => {
    const member = await stack.seed.user();
    await cli(["team", "create", "--name", "switch-team"], stack);
    const token = await stack.seed.token({ userId: member.id, teamId: await teamId("switch-team") });
    expect((await chat(stack.gateway, token.secret)).status).toBe(200);
    expect((await cli(["team", "update", "switch-team", "--status", "disabled"], stack)).exitCode).toBe(0);
    await waitFor(async () => (await chat(stack.gateway, token.secret)).status === 401, "the disabled team to reach the gateway");
    expect((await errorOf(await chat(stack.gateway, token.secret))).code).toBe("team_disabled");
  });
});

describe("team admins in the admin domain", () => {
  test("a team admin creates tokens for the team's members, sees and revokes the team's tokens and logs, and nothing of other teams", async () => {
    const [lead, member, outsider] = [await stack.seed.user(), await stack.seed.user(), await stack.seed.user()];
    await cli(["team", "create", "--name", "admin-team"], stack);
    await cli(["team", "create", "--name", "other-team"], stack);
    const id = await teamId("admin-team");
    const otherId = await teamId("other-team");
    const db = stack.database.handle.db;
    const administrator = { role: "admin", id: null, group: null } as const;
    await addTeamMember(db, administrator, { teamId: id, userId: lead.id, role: "team_admin" });
    await addTeamMember(db, administrator, { teamId: id, userId: member.id, role: "member" });
    const leadActor = { role: "user", id: lead.id, group: "default" } as const;
    const memberActor = { role: "user", id: member.id, group: "default" } as const;
    const { token, secret } = await createToken(db, leadActor, { name: "for-member", userId: member.id, teamId: id });
    expect(token.teamId).toBe(id);
    expect(token.userId).toBe(member.id);
    expect(String(await refusalOf(createToken(db, leadActor, { name: "stranger", userId: outsider.id, teamId: id })))).toContain("must be a member");
    expect(String(await refusalOf(createToken(db, memberActor, { name: "not-mine", userId: lead.id, teamId: id })))).toContain("only create tokens for yourself");
    expect(await refusalOf(createToken(db, leadActor, { name: "elsewhere", teamId: otherId }))).toBeInstanceOf(AdminError);
    expect((await chat(stack.gateway, secret)).status).toBe(200);
    await stack.gateway.services.usage.flush();
    expect((await teamLogs(db, leadActor, id)).map((row) => row.tokenName)).toEqual(["for-member"]);
    expect(String(await refusalOf(teamLogs(db, leadActor, otherId)))).toContain("Unknown team");
    expect((await searchTokens(db, leadActor, { teamId: id, offset: 0, limit: 10 })).items.map((row) => row.name)).toEqual(["for-member"]);
    expect((await listTeams(db, leadActor)).map((team) => team.name)).toEqual(["admin-team"]);
    expect((await getTeam(db, memberActor, id)).yourRole).toBe("member");
    expect(String(await refusalOf(updateTeam(db, leadActor, { id, budget: 1_000_000 })))).toContain("Only an administrator");
    expect(String(await refusalOf(addTeamMember(db, memberActor, { teamId: id, userId: outsider.id, role: "member" })))).toContain("team's admins");
    expect(await deleteToken(db, leadActor, token.id)).toEqual({ id: token.id, name: "for-member" });
  });
});

describe("team budgets across two instances on one Postgres", () => {
  const gateways = twoGatewaysForBlock();

  test.if(usePostgres)("a monthly team budget is spent exactly once by two members' tokens under load on both instances", async () => {
    const two = gateways.current;
    await seedMeteredModel(two.seed, two.upstream);
    const [first, second] = [await two.seed.user(), await two.seed.user()];
    const created = await cli(["team", "create", "--name", "shared-team", "--budget", String((10 * CALL_COST) / 1e6), "--period", "monthly", "--json"], two);
    const id = JSON.parse(created.stdout).id as number;
    const one = await two.seed.token({ userId: first.id, teamId: id });
    const other = await two.seed.token({ userId: second.id, teamId: id });
    const statuses = (
      await Promise.all(Array.from({ length: 30 }, (_, index) => chat(index % 2 === 0 ? two.first : two.second, index % 3 === 0 ? one.secret : other.secret)))
    ).map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    await two.first.services.usage.flush();
    await two.second.services.usage.flush();
    const [row] = await two.database.handle.db.select().from(teams).where(eq(teams.id, id));
    expect(row!.usedTotal).toBe(10 * CALL_COST);
    expect(row!.periodUsed).toBe(10 * CALL_COST);
    // Raising the budget by the CLI reaches both warm instances (their refusals are forgotten).
    await cli(["team", "update", "shared-team", "--budget", String((11 * CALL_COST) / 1e6)], two);
    for (const gateway of [two.first, two.second]) await waitFor(async () => gateway.services.teams.peek(id)?.budgetLimit === 11 * CALL_COST || !gateway.services.teams.peek(id), "the new budget to reach the instance");
    const after = await Promise.all([chat(two.first, one.secret), chat(two.second, other.secret)]);
    expect(after.map((response) => response.status).sort()).toEqual([200, 429]);
  });
});
