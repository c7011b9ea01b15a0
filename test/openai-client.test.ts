import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import type { FakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import type { FreshDatabase } from "./helpers/fresh-database";
import { type GatewayUnderTest, seeder, type GatewayStack, startGatewayStack } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let stack: GatewayStack;
let database: FreshDatabase;
let upstream: FakeOpenAIUpstream;
let gateway: GatewayUnderTest;
let baseURL: string;
let seed: ReturnType<typeof seeder>;
let userId: number;
let client: OpenAI;

beforeAll(async () => {
  stack = await startGatewayStack();
  ({ database, upstream, gateway, seed, userId } = stack);
  baseURL = await gateway.listen();
  await seed.channel({ baseUrl: upstream.url, models: ["gpt-4o-mini", "text-embedding-3-small", "other-model"] });
  const token = await seed.token({ userId });
  client = new OpenAI({ apiKey: token.secret, baseURL, maxRetries: 0 });
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

describe("the official openai client against a listening gateway", () => {
  test("chat completion", async () => {
    upstream.enqueue({ kind: "ok", content: "Hello from upstream" });
    const completion = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "Say hello" }],
    });
    expect(completion.choices[0]?.message.content).toBe("Hello from upstream");
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
  });

  test("streamed chat completion arrives chunk by chunk with the same text, usage when asked", async () => {
    upstream.enqueue({ kind: "ok", content: "The quick brown fox jumps", promptTokens: 11, completionTokens: 5 });
    const stream = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "Tell me" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let chunks = 0;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta?.content ?? "";
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe("The quick brown fox jumps");
    expect(chunks).toBeGreaterThan(5);
    expect(usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 5 });
  });

  test("embeddings with the client's default base64 encoding decode to the upstream's floats", async () => {
    const viaClient = await client.embeddings.create({ model: "text-embedding-3-small", input: ["alpha", "beta"] });
    expect(viaClient.data).toHaveLength(2);
    expect(viaClient.data[0]!.embedding.length).toBeGreaterThan(0);
    const floats = await client.embeddings.create({ model: "text-embedding-3-small", input: ["alpha", "beta"], encoding_format: "float" });
    for (const [index, entry] of floats.data.entries()) {
      const decoded = viaClient.data[index]!.embedding;
      expect(decoded.length).toBe(entry.embedding.length);
      entry.embedding.forEach((value, position) => expect(decoded[position]!).toBeCloseTo(value, 5));
    }
    // The client asked the upstream (through the gateway) for base64 and the gateway passed it on.
    const forwarded = upstream.requests.filter((request) => request.path.endsWith("/embeddings"));
    expect(forwarded.at(-2)!.body.encoding_format).toBe("base64");
  });

  test("models list", async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(["gpt-4o-mini", "other-model", "text-embedding-3-small"]);
  });

  test("typed errors: 401, 403, 404 and 429", async () => {
    const wrongKey = new OpenAI({ apiKey: "sk-wrong", baseURL, maxRetries: 0 });
    const unauthorized = await wrongKey.models.list().catch((error) => error);
    expect(unauthorized).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(unauthorized.code).toBe("invalid_api_key");

    const restricted = await seed.token({ userId, allowedModels: ["other-model"] });
    const restrictedClient = new OpenAI({ apiKey: restricted.secret, baseURL, maxRetries: 0 });
    const forbidden = await restrictedClient.chat.completions
      .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x" }] })
      .catch((error) => error);
    expect(forbidden).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(forbidden.code).toBe("model_not_allowed");

    const missing = await client.chat.completions
      .create({ model: "no-such-model", messages: [{ role: "user", content: "x" }] })
      .catch((error) => error);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missing.code).toBe("model_not_found");

    const limited = await seed.token({ userId, rpmLimit: 1 });
    const limitedClient = new OpenAI({ apiKey: limited.secret, baseURL, maxRetries: 0 });
    await limitedClient.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x" }] });
    const tooMany = await limitedClient.chat.completions
      .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x" }] })
      .catch((error) => error);
    expect(tooMany).toBeInstanceOf(OpenAI.RateLimitError);
    expect(tooMany.headers.get("retry-after")).toBeTruthy();
  });

  test("an upstream error is relayed with its status in the envelope", async () => {
    upstream.enqueue({ kind: "error", status: 400 });
    const error = await client.chat.completions
      .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x" }] })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(typeof error.error.message).toBe("string");
  });
});
