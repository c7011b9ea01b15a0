import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type FakeAnthropicUpstream, startFakeAnthropicUpstream } from "./helpers/fake-anthropic-upstream";
import { type FakeOpenAIResponsesUpstream, startFakeOpenAIResponsesUpstream } from "./helpers/fake-openai-responses-upstream";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import { type GatewayUnderTest, seeder, type StackWith, startStackWith } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let stack: StackWith<{ responsesUpstream: FakeOpenAIResponsesUpstream; anthropicUpstream: FakeAnthropicUpstream; chatUpstream: FakeOpenAIUpstream }>;
let responsesUpstream: FakeOpenAIResponsesUpstream;
let anthropicUpstream: FakeAnthropicUpstream;
let chatUpstream: FakeOpenAIUpstream;
let gateway: GatewayUnderTest;
let seed: ReturnType<typeof seeder>;
let userId: number;
let secret: string;
let tokenId: number;
let plainChannelId: number;
let searchingChannelId: number;

/** A Responses model served by a channel without built-in tools (tried first) and one that allows web search. */
const GPT = "gpt-4o";
/** A Responses model whose only channel allows no built-in tool. */
const GPT_PLAIN = "gpt-4o-plain";
const CLAUDE = "claude-sonnet-4-5";
const CLAUDE_PLAIN = "claude-plain";
const SEARCH_CHAT = "gpt-4o-search-preview";
const CHAT_PLAIN = "gpt-4o-mini";
/** Micro-USD per search (10 USD per 1,000 searches, OpenAI's and Anthropic's list price). */
const SEARCH_PRICE = 10_000;

function post(path: string, body: Record<string, unknown>, key = secret): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (path === "/v1/messages") {
    headers["x-api-key"] = key;
    headers["anthropic-version"] = "2023-06-01";
  } else headers.authorization = `Bearer ${key}`;
  return gateway.handle(new Request(`http://gateway.test${path}`, { method: "POST", headers, body: JSON.stringify(body) }));
}

const lastLog = () => stack.lastLog(tokenId);

/** At 1 USD per million tokens each way, a call's token cost is its token count in micro-USD. */
const tokenCost = (input: number, output: number) => input + output;

beforeAll(async () => {
  stack = await startStackWith(async (keep) => ({
    responsesUpstream: await keep(startFakeOpenAIResponsesUpstream()),
    anthropicUpstream: await keep(startFakeAnthropicUpstream()),
    chatUpstream: await keep(startFakeOpenAIUpstream()),
  }));
  ({ responsesUpstream, anthropicUpstream, chatUpstream } = stack.fakes);
  ({ gateway, seed, userId } = stack);
  const openai = { preset: "openai" };
  const searching = { builtInTools: { web_search: { pricePerCall: SEARCH_PRICE } } };
  plainChannelId = (await seed.channel({ name: "plain", baseUrl: responsesUpstream.url, models: [GPT, GPT_PLAIN], config: openai, priority: 10 })).id;
  searchingChannelId = (await seed.channel({ name: "searching", baseUrl: responsesUpstream.url, models: [GPT], config: { ...openai, ...searching } })).id;
  await seed.channel({ name: "claude", type: "anthropic", baseUrl: anthropicUpstream.url, models: [CLAUDE], config: searching });
  await seed.channel({ name: "claude-plain", type: "anthropic", baseUrl: anthropicUpstream.url, models: [CLAUDE_PLAIN] });
  await seed.channel({ name: "search-chat", baseUrl: chatUpstream.url, models: [SEARCH_CHAT], config: searching });
  await seed.channel({ name: "chat", baseUrl: chatUpstream.url, models: [CHAT_PLAIN] });
  for (const model of [GPT, GPT_PLAIN, CLAUDE, CLAUDE_PLAIN, SEARCH_CHAT, CHAT_PLAIN]) await seed.price(model, 1, 1);
  const token = await seed.token({ userId });
  secret = token.secret;
  tokenId = token.row.id;
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

describe("built-in tools on the Responses API relay", () => {
  test("a built-in tool no channel of the model allows is refused with 400 builtin_tool_not_allowed, naming the tool, and never reaches the upstream", async () => {
    const before = responsesUpstream.requests.length;
    const response = await post("/v1/responses", { model: GPT_PLAIN, input: "news?", tools: [{ type: "function", name: "f", parameters: {} }, { type: "web_search_preview" }] });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; param: string; type: string; message: string } };
    expect(body.error).toMatchObject({ code: "builtin_tool_not_allowed", param: "tools[1].type", type: "invalid_request_error" });
    expect(body.error.message).toContain("web_search_preview");
    for (const type of ["file_search", "code_interpreter", "image_generation", "mcp"]) {
      const refused = await post("/v1/responses", { model: GPT_PLAIN, input: "x", tools: [{ type }] });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { param: string } }).error.param).toBe("tools[0].type");
    }
    expect(responsesUpstream.requests.length).toBe(before);
  });

  test("client-executed tools (computer use, functions) are relayed without an allowance", async () => {
    const response = await post("/v1/responses", {
      model: GPT_PLAIN,
      input: "click",
      tools: [{ type: "computer_use_preview", display_width: 1024, display_height: 768, environment: "browser" }],
    });
    expect(response.status).toBe(200);
    expect(responsesUpstream.requests.at(-1)!.body.tools[0].type).toBe("computer_use_preview");
  });

  test("a request with web search goes only to the channel that allows it, and each search is billed at its price", async () => {
    responsesUpstream.enqueue({ kind: "text", text: "Here is the news.", inputTokens: 30, outputTokens: 8, searches: 2 });
    const response = await post("/v1/responses", { model: GPT, input: "news?", tools: [{ type: "web_search" }] });
    expect(response.status).toBe(200);
    const cost = tokenCost(30, 8) + 2 * SEARCH_PRICE;
    expect(response.headers.get("x-tollgate-cost-usd")).toBe((cost / 1_000_000).toFixed(6));
    expect(await lastLog()).toMatchObject({ channelId: searchingChannelId, cost, promptTokens: 30, completionTokens: 8, status: 200 });
    // Without the tool the higher-priority plain channel serves the model.
    expect((await post("/v1/responses", { model: GPT, input: "hi" })).status).toBe(200);
    expect(await lastLog()).toMatchObject({ channelId: plainChannelId });
  });

  test("a streamed answer's searches are counted from its output items and billed the same", async () => {
    responsesUpstream.enqueue({ kind: "text", text: "Streamed news.", inputTokens: 20, outputTokens: 5, searches: 3 });
    const response = await post("/v1/responses", { model: GPT, input: "news?", stream: true, tools: [{ type: "web_search_preview_2025_03_11" }] });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text.match(/"type":"web_search_call"/g)?.length).toBeGreaterThanOrEqual(3);
    expect(await lastLog()).toMatchObject({ channelId: searchingChannelId, cost: tokenCost(20, 5) + 3 * SEARCH_PRICE, stream: true });
  });

  test("the reservation holds at least one call's price: a quota below it refuses the call with 429, the same call without the tool is served", async () => {
    const small = await seed.token({ userId, quotaLimit: SEARCH_PRICE / 2 });
    const refused = await post("/v1/responses", { model: GPT, input: "news?", max_output_tokens: 16, tools: [{ type: "web_search" }] }, small.secret);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("insufficient_quota");
    expect((await post("/v1/responses", { model: GPT, input: "hi", max_output_tokens: 16 }, small.secret)).status).toBe(200);
  });
});

describe("Anthropic server tools on the /v1/messages native relay", () => {
  const message = (model: string, tools: unknown[], stream = false) => ({
    model,
    max_tokens: 64,
    stream,
    messages: [{ role: "user", content: "news?" }],
    tools,
  });

  test("web search on a channel that does not allow it is refused with 400 in Anthropic's shape", async () => {
    const before = anthropicUpstream.requests.length;
    const response = await post("/v1/messages", message(CLAUDE_PLAIN, [{ type: "web_search_20250305", name: "web_search", max_uses: 5 }]));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe("error");
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toContain("web_search_20250305");
    expect(anthropicUpstream.requests.length).toBe(before);
  });

  test("client tools (bash, text editor, computer) pass without an allowance", async () => {
    const tools = [
      { type: "bash_20250124", name: "bash" },
      { type: "text_editor_20250728", name: "str_replace_based_edit_tool" },
      { type: "computer_20250124", name: "computer", display_width_px: 1024, display_height_px: 768 },
    ];
    expect((await post("/v1/messages", message(CLAUDE_PLAIN, tools))).status).toBe(200);
  });

  test("count_tokens with server tools is counted by the Anthropic channel (nothing runs, nothing is billed)", async () => {
    const body = { model: CLAUDE, messages: [{ role: "user", content: "news?" }], tools: [{ type: "web_search_20250305", name: "web_search" }] };
    const response = await post("/v1/messages/count_tokens", body);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-tollgate-estimated")).toBeNull();
    expect(anthropicUpstream.requests.at(-1)).toMatchObject({ path: "/v1/messages/count_tokens", body: { tools: body.tools } });
  });

  test("each search Anthropic reports is billed at the channel's price, whole and streamed", async () => {
    const tools = [{ type: "web_search_20250305", name: "web_search" }];
    anthropicUpstream.enqueue({ kind: "text", text: "The news.", inputTokens: 40, outputTokens: 10, searches: 2 });
    const whole = await post("/v1/messages", message(CLAUDE, tools));
    expect(whole.status).toBe(200);
    expect(await lastLog()).toMatchObject({ cost: tokenCost(40, 10) + 2 * SEARCH_PRICE, stream: false });

    anthropicUpstream.enqueue({ kind: "text", text: "The streamed news.", inputTokens: 40, outputTokens: 10, searches: 3 });
    const streamed = await post("/v1/messages", message(CLAUDE, tools, true));
    expect(streamed.status).toBe(200);
    expect(await streamed.text()).toContain("server_tool_use");
    expect(await lastLog()).toMatchObject({ cost: tokenCost(40, 10) + 3 * SEARCH_PRICE, stream: true });
  });
});

describe("built-in tools in chat completions", () => {
  test("web_search_options is refused where no channel allows it, and billed once per answered call where one does", async () => {
    const refused = await post("/v1/chat/completions", { model: CHAT_PLAIN, messages: [{ role: "user", content: "news?" }], web_search_options: {} });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string; param: string } }).error).toMatchObject({
      code: "builtin_tool_not_allowed",
      param: "web_search_options",
    });
    chatUpstream.enqueue({ kind: "ok", content: "The news.", promptTokens: 11, completionTokens: 4 });
    const served = await post("/v1/chat/completions", { model: SEARCH_CHAT, messages: [{ role: "user", content: "news?" }], web_search_options: {} });
    expect(served.status).toBe(200);
    expect(await lastLog()).toMatchObject({ cost: tokenCost(11, 4) + SEARCH_PRICE });
  });

  test("a streamed answer's usage chunk carries the cost with the search fee, as billed", async () => {
    chatUpstream.enqueue({ kind: "ok", content: "The streamed news.", promptTokens: 11, completionTokens: 4 });
    const response = await post("/v1/chat/completions", {
      model: SEARCH_CHAT,
      messages: [{ role: "user", content: "news?" }],
      web_search_options: {},
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(response.status).toBe(200);
    const chunks = (await response.text())
      .split("\n")
      .filter((line) => line.startsWith("data: {"))
      .map((line) => JSON.parse(line.slice(6)) as { usage?: { cost?: number } | null });
    const cost = tokenCost(11, 4) + SEARCH_PRICE;
    expect(chunks.at(-1)!.usage?.cost).toBe(cost / 1_000_000);
    expect(await lastLog()).toMatchObject({ cost, stream: true });
  });
});
