import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { requestLogs } from "@tollgate/db";
import { asc, eq } from "drizzle-orm";
import { fakeInputTokens, type FakeAnthropicUpstream, startFakeAnthropicUpstream } from "./helpers/fake-anthropic-upstream";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import { type FreshDatabase, freshDatabase } from "./helpers/fresh-database";
import { type GatewayUnderTest, seeder, startGateway } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let database: FreshDatabase;
let anthropicUpstream: FakeAnthropicUpstream;
let openaiUpstream: FakeOpenAIUpstream;
let gateway: GatewayUnderTest;
let gatewayUrl: string;
let client: Anthropic;
let secret: string;
let tokenId: number;
let restrictedKey: string;
let limitedKey: string;
let foreignIpKey: string;

const countBody = {
  model: "claude-sonnet-4-5",
  system: "You are a weather assistant.",
  messages: [{ role: "user" as const, content: "What is the weather in Paris today, and should I take an umbrella?" }],
};

async function logsOfToken(id: number) {
  await gateway.services.usage.flush();
  return database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, id)).orderBy(asc(requestLogs.id));
}

beforeAll(async () => {
  database = await freshDatabase();
  anthropicUpstream = await startFakeAnthropicUpstream({ requireApiKey: "sk-ant-upstream" });
  openaiUpstream = await startFakeOpenAIUpstream();
  gateway = await startGateway(database.handle, { socketAddress: "203.0.113.7" });
  gatewayUrl = (await gateway.listen()).replace(/\/v1$/, "");
  const seed = seeder(database.handle, gateway.secretBox, [gateway]);
  const userId = (await seed.user()).id;
  await seed.channel({
    name: "claude",
    type: "anthropic",
    baseUrl: anthropicUpstream.url,
    apiKey: "sk-ant-upstream",
    models: ["claude-sonnet-4-5"],
    modelMapping: { "claude-sonnet-4-5": "claude-sonnet-4-5-20250929" },
  });
  await seed.channel({ name: "openai", baseUrl: openaiUpstream.url, models: ["gpt-4o-mini"] });
  await seed.price("claude-sonnet-4-5", 3, 15);
  const token = await seed.token({ userId });
  secret = token.secret;
  tokenId = token.row.id;
  restrictedKey = (await seed.token({ userId, allowedModels: ["gpt-4o-mini"] })).secret;
  limitedKey = (await seed.token({ userId, rpmLimit: 1 })).secret;
  foreignIpKey = (await seed.token({ userId, allowedIps: ["198.51.100.0/24"] })).secret;
  client = new Anthropic({ apiKey: secret, baseURL: gatewayUrl, maxRetries: 0 });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await gateway?.stop();
  await anthropicUpstream?.close();
  await openaiUpstream?.close();
  await database?.drop();
}, SETUP_TIMEOUT_MS);

describe("POST /v1/messages/count_tokens", () => {
  test("on an Anthropic channel the SDK's countTokens gets Anthropic's exact count, with the client's headers passed on", async () => {
    const counted = await client.messages.countTokens(countBody, {
      headers: { "anthropic-version": "2023-06-01", "anthropic-beta": "token-counting-2024-11-01" },
    });
    const sent = anthropicUpstream.requests.at(-1)!;
    expect(sent.path).toBe("/v1/messages/count_tokens");
    expect(sent.headers["x-api-key"]).toBe("sk-ant-upstream");
    expect(sent.headers["anthropic-version"]).toBe("2023-06-01");
    expect(sent.headers["anthropic-beta"]).toBe("token-counting-2024-11-01");
    expect(sent.body.model).toBe("claude-sonnet-4-5-20250929");
    expect(counted).toEqual({ input_tokens: fakeInputTokens(sent.body) });
  });

  test("it is logged at no cost and holds no quota", async () => {
    const raw = await client.messages.countTokens(countBody).asResponse();
    expect(raw.headers.get("x-tollgate-estimated")).toBeNull();
    const log = (await logsOfToken(tokenId)).at(-1)!;
    expect(log).toMatchObject({ endpoint: "messages.count_tokens", status: 200, cost: 0, promptTokens: 0, completionTokens: 0 });
  });

  test("on a non-Anthropic channel it is counted locally and marked estimated", async () => {
    const before = openaiUpstream.requests.length;
    const raw = await client.messages.countTokens({ ...countBody, model: "gpt-4o-mini" }).asResponse();
    expect(raw.headers.get("x-tollgate-estimated")).toBe("true");
    const body = (await raw.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(["input_tokens"]);
    expect(body.input_tokens).toBeGreaterThan(15);
    expect(body.input_tokens).toBeLessThan(40);
    expect(openaiUpstream.requests.length).toBe(before);
  });

  test("when the Anthropic channel is overloaded the count is made locally and marked estimated", async () => {
    anthropicUpstream.enqueue({ kind: "error", status: 529 });
    const raw = await client.messages.countTokens(countBody).asResponse();
    expect(raw.status).toBe(200);
    expect(raw.headers.get("x-tollgate-estimated")).toBe("true");
    expect(((await raw.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(15);
  });

  test("the Anthropic channel's refusal of a malformed request reaches the client as Anthropic's error", async () => {
    anthropicUpstream.enqueue({ kind: "error", status: 400, message: "tools.0.input_schema: Field required" });
    const refused = await client.messages.countTokens(countBody).catch((caught) => caught);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect(refused.error).toMatchObject({ type: "error", error: { type: "invalid_request_error", message: expect.stringContaining("input_schema") } });
  });

  test("refusals come as the SDK's errors, in Anthropic's shape", async () => {
    const wrong = new Anthropic({ apiKey: "sk-wrong", baseURL: gatewayUrl, maxRetries: 0 });
    expect(await wrong.messages.countTokens(countBody).catch((caught) => caught)).toBeInstanceOf(Anthropic.AuthenticationError);
    const restricted = new Anthropic({ apiKey: restrictedKey, baseURL: gatewayUrl, maxRetries: 0 });
    const forbidden = await restricted.messages.countTokens(countBody).catch((caught) => caught);
    expect(forbidden).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(forbidden.error).toMatchObject({ type: "error", error: { type: "permission_error" } });
    const foreign = new Anthropic({ apiKey: foreignIpKey, baseURL: gatewayUrl, maxRetries: 0 });
    expect(await foreign.messages.countTokens(countBody).catch((caught) => caught)).toBeInstanceOf(Anthropic.PermissionDeniedError);
    const unknown = await client.messages.countTokens({ ...countBody, model: "claude-unknown" }).catch((caught) => caught);
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
    const malformed = await client.messages.countTokens({ model: "gpt-4o-mini" } as never).catch((caught) => caught);
    expect(malformed).toBeInstanceOf(Anthropic.BadRequestError);
    expect(malformed.error.error.message).toContain("messages");
  });

  test("it is rate-limited by requests per minute like any call", async () => {
    const limited = new Anthropic({ apiKey: limitedKey, baseURL: gatewayUrl, maxRetries: 0 });
    await limited.messages.countTokens(countBody);
    const refused = await limited.messages.countTokens(countBody).catch((caught) => caught);
    expect(refused).toBeInstanceOf(Anthropic.RateLimitError);
    expect(refused.error).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
  });
});

describe("GET /v1/models with anthropic-version", () => {
  test("the SDK's models.list() gets Anthropic's model infos for the models the token may use", async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models.map((model) => model.id)).toEqual(["claude-sonnet-4-5", "gpt-4o-mini"]);
    expect(models[0]).toMatchObject({ type: "model", display_name: "claude-sonnet-4-5" });
    expect(Number.isNaN(Date.parse(models[0]!.created_at))).toBe(false);
    const restricted = new Anthropic({ apiKey: restrictedKey, baseURL: gatewayUrl, maxRetries: 0 });
    expect((await restricted.models.list()).data.map((model) => model.id)).toEqual(["gpt-4o-mini"]);
  });

  test("pages as Anthropic does, with has_more, first_id and last_id", async () => {
    const first = await client.models.list({ limit: 1 });
    expect(first.data.map((model) => model.id)).toEqual(["claude-sonnet-4-5"]);
    expect(first.has_more).toBe(true);
    expect([first.first_id, first.last_id]).toEqual(["claude-sonnet-4-5", "claude-sonnet-4-5"]);
    const all = [];
    for await (const model of client.models.list({ limit: 1 })) all.push(model.id);
    expect(all).toEqual(["claude-sonnet-4-5", "gpt-4o-mini"]);
    const before = await client.models.list({ limit: 5, before_id: "gpt-4o-mini" });
    expect(before.data.map((model) => model.id)).toEqual(["claude-sonnet-4-5"]);
    expect(before.has_more).toBe(false);
  });

  test("models.retrieve() gets one model info; an unknown one is a NotFoundError in Anthropic's shape", async () => {
    expect(await client.models.retrieve("gpt-4o-mini")).toMatchObject({ type: "model", id: "gpt-4o-mini", display_name: "gpt-4o-mini" });
    const missing = await client.models.retrieve("claude-unknown").catch((caught) => caught);
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
    expect(missing.error).toMatchObject({ type: "error", error: { type: "not_found_error" } });
  });

  test("without anthropic-version the list keeps OpenAI's shape", async () => {
    const response = await fetch(`${gatewayUrl}/v1/models`, { headers: { "x-api-key": secret } });
    const body = (await response.json()) as { object: string; data: Array<Record<string, unknown>> };
    expect(body.object).toBe("list");
    expect(body.data[0]).toMatchObject({ object: "model", id: "claude-sonnet-4-5" });
  });
});

describe("paths the gateway does not serve", () => {
  test("an unknown /v1 path is a 404 saying so and listing what is served", async () => {
    const response = await fetch(`${gatewayUrl}/v1/assistants`, { method: "POST", headers: { authorization: `Bearer ${secret}` } });
    expect(response.status).toBe(404);
    const { error } = (await response.json()) as { error: { message: string; code: string; type: string } };
    expect(error.code).toBe("unknown_url");
    expect(error.message).toStartWith("This gateway does not serve POST /v1/assistants.");
    expect(error.message).toContain("POST /v1/messages/count_tokens");
    expect(error.message).not.toContain("must include /v1");
  });

  test("a served path with another method is a 405 naming the method to use", async () => {
    const response = await fetch(`${gatewayUrl}/v1/chat/completions`, { headers: { authorization: `Bearer ${secret}` } });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("method_not_allowed");
  });
});
