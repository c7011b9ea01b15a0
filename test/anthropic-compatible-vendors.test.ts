import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { channels, requestLogs } from "@tollgate/db";
import { asc, eq } from "drizzle-orm";
import { cliOperator, createChannel, createChannelSchema, listChannelPresets, updateChannel } from "../packages/admin/src/index";
import { countTextTokens } from "../apps/gateway/src/accounting/count-tokens";
import { type FakeAnthropicUpstream, startFakeAnthropicUpstream } from "./helpers/fake-anthropic-upstream";
import { type FreshDatabase, freshDatabase } from "./helpers/fresh-database";
import { type GatewayUnderTest, seeder, startGateway, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

/**
 * Vendors that serve Anthropic's Messages API for Claude Code (GLM, Kimi, DeepSeek, Qwen): presets on the
 * anthropic channel type, and count_tokens counted locally when such a vendor answers 404 or 405 for it.
 */
let database: FreshDatabase;
let glm: FakeAnthropicUpstream;
let kimi: FakeAnthropicUpstream;
let gateway: GatewayUnderTest;
let secret: string;
let tokenId: number;
let glmChannel: number;

const anthropicHeaders = { "anthropic-version": "2023-06-01" };

function post(path: string, body: Record<string, unknown>) {
  return gateway.handle(
    new Request(`http://gateway.test${path}`, {
      method: "POST",
      headers: { "x-api-key": secret, "content-type": "application/json", ...anthropicHeaders },
      body: JSON.stringify(body),
    }),
  );
}

const question = { messages: [{ role: "user", content: "What is the capital of France? Answer in one word." }] };

beforeAll(async () => {
  database = await freshDatabase();
  // Zhipu's endpoint answers 404 to count_tokens, the other vendor 405 (a route that exists for another method).
  glm = await startFakeAnthropicUpstream({ basePath: "/api/anthropic", countTokensStatus: 404, requireApiKey: "glm-key" });
  kimi = await startFakeAnthropicUpstream({ basePath: "/anthropic", countTokensStatus: 405, requireApiKey: "kimi-key" });
  gateway = await startGateway(database.handle);
  const seed = seeder(database.handle, gateway.secretBox, [gateway]);
  const userId = (await seed.user()).id;
  const token = await seed.token({ userId });
  secret = token.secret;
  tokenId = token.row.id;
  const common = { type: "anthropic" as const, config: {} };
  glmChannel = (await seed.channel({ ...common, name: "glm", baseUrl: `${glm.url}/api/anthropic`, apiKey: "glm-key", models: ["glm-4.6"], config: { preset: "zhipu-anthropic" } })).id;
  await seed.channel({ ...common, name: "kimi", baseUrl: `${kimi.url}/anthropic`, apiKey: "kimi-key", models: ["kimi-k2"], config: { preset: "moonshot-anthropic" } });
  await countTextTokens("warm up");
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await gateway?.stop();
  await Promise.all([glm?.close(), kimi?.close()]);
  await database?.drop();
}, SETUP_TIMEOUT_MS);

describe("Anthropic-compatible vendor presets", () => {
  test("each vendor's preset makes an anthropic channel at the base URL its documentation gives Claude Code", () => {
    const anthropicPresets = Object.fromEntries(listChannelPresets().filter((preset) => preset.type === "anthropic").map((preset) => [preset.id, preset.baseUrl]));
    expect(anthropicPresets).toEqual({
      "zhipu-anthropic": "https://open.bigmodel.cn/api/anthropic",
      "moonshot-anthropic": "https://api.moonshot.ai/anthropic",
      "deepseek-anthropic": "https://api.deepseek.com/anthropic",
      "qwen-anthropic": "https://dashscope-intl.aliyuncs.com/apps/anthropic",
    });
    const parsed = createChannelSchema.parse({ name: "deepseek", preset: "deepseek-anthropic", apiKey: "sk-deepseek", models: ["deepseek-chat"] });
    expect(parsed).toMatchObject({ type: "anthropic", baseUrl: "https://api.deepseek.com/anthropic", config: { preset: "deepseek-anthropic" } });
    // The OpenAI-compatible presets keep making openai-compatible channels.
    expect(createChannelSchema.parse({ name: "ds", preset: "deepseek", apiKey: "sk", models: ["deepseek-chat"] })).toMatchObject({ type: "openai-compatible" });
  });

  test("a preset of another type is refused, when the channel is made and when it is changed", async () => {
    const mixed = createChannelSchema.safeParse({ name: "x", type: "openai-compatible", preset: "qwen-anthropic", apiKey: "sk", models: ["qwen-plus"] });
    expect(mixed.success).toBe(false);
    expect(mixed.error!.issues[0]).toMatchObject({ path: ["preset"], message: "Is a preset for anthropic channels, not openai-compatible" });
    const unknown = createChannelSchema.safeParse({ name: "x", preset: "nobody-anthropic", apiKey: "sk", models: ["m"] });
    expect(unknown.error!.issues[0]!.message).toContain("zhipu-anthropic");
    const input = createChannelSchema.parse({ name: "qwen", preset: "qwen-anthropic", apiKey: "sk-qwen", models: ["qwen-plus"] });
    const created = await createChannel(database.handle.db, gateway.secretBox, cliOperator, input);
    expect(created).toMatchObject({ type: "anthropic", preset: "qwen-anthropic", baseUrl: "https://dashscope-intl.aliyuncs.com/apps/anthropic" });
    await expect(updateChannel(database.handle.db, gateway.secretBox, cliOperator, { id: created.id, preset: "moonshot" })).rejects.toThrow("Is a preset for openai-compatible channels, not anthropic");
    const moved = await updateChannel(database.handle.db, gateway.secretBox, cliOperator, { id: created.id, preset: "deepseek-anthropic" });
    expect(moved.preset).toBe("deepseek-anthropic");
  });

  test("Claude Code's messages reach the vendor's endpoint natively, under its base path", async () => {
    const response = await post("/v1/messages", { model: "glm-4.6", max_tokens: 50, ...question });
    expect(response.status).toBe(200);
    const sent = glm.requests.at(-1)!;
    expect(sent.path).toBe("/api/anthropic/v1/messages");
    expect(sent.headers["x-api-key"]).toBe("glm-key");
    expect(((await response.json()) as { type: string }).type).toBe("message");
  });

  test("count_tokens answered 404 by the vendor is counted locally, marked estimated, and the channel is not blamed", async () => {
    const before = glm.requests.length;
    const response = await post("/v1/messages/count_tokens", { model: "glm-4.6", ...question });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-tollgate-estimated")).toBe("true");
    const body = (await response.json()) as { input_tokens: number };
    expect(Object.keys(body)).toEqual(["input_tokens"]);
    expect(body.input_tokens).toBeGreaterThan(10);
    expect(glm.requests.slice(before).map((request) => request.path)).toEqual(["/api/anthropic/v1/messages/count_tokens"]);
    expect(gateway.services.health.isAvailable(glmChannel)).toBe(true);
    await gateway.services.usage.flush();
    const [log] = (await database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, tokenId)).orderBy(asc(requestLogs.id))).slice(-1);
    expect(log).toMatchObject({ endpoint: "messages.count_tokens", status: 200, cost: 0 });
  });

  test("count_tokens answered 405 is counted locally too, the same count as for the 404", async () => {
    const glmCount = (await (await post("/v1/messages/count_tokens", { model: "glm-4.6", ...question })).json()) as { input_tokens: number };
    const response = await post("/v1/messages/count_tokens", { model: "kimi-k2", ...question });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-tollgate-estimated")).toBe("true");
    expect(await response.json()).toEqual(glmCount);
    expect(kimi.requests.at(-1)!.path).toBe("/anthropic/v1/messages/count_tokens");
  });

  test("a key the vendor refuses on count_tokens disables the channel, and the call is still counted locally", async () => {
    const wrongKey = await startFakeAnthropicUpstream({ basePath: "/anthropic", requireApiKey: "right" });
    try {
      const seed = seeder(database.handle, gateway.secretBox, [gateway]);
      await seed.channel({ type: "anthropic", name: "refused", baseUrl: `${wrongKey.url}/anthropic`, apiKey: "wrong", models: ["refused-model"] });
      const response = await post("/v1/messages/count_tokens", { model: "refused-model", ...question });
      // The only channel failed: count_tokens still answers with the local count, as it does when none answers.
      expect(response.status).toBe(200);
      expect(response.headers.get("x-tollgate-estimated")).toBe("true");
      await waitFor(async () => {
        const [row] = await database.handle.db.select().from(channels).where(eq(channels.name, "refused"));
        return row?.status === "auto_disabled";
      }, "the refused channel to be disabled");
    } finally {
      await wrongKey.close();
    }
  });
});
