import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { loadTokenizer } from "../apps/gateway/src/accounting/count-tokens";
import { countPromptForReservation, TOKENIZER_MARGINS } from "../apps/gateway/src/accounting/estimate-prompt-tokens";
import { type GatewayStack, type GatewayUnderTest, startGatewayStack, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";
import { twoGatewaysForBlock } from "./helpers/two-gateways";
import { usePostgres } from "./helpers/fresh-database";

// A bound on hangs (a busy 2-core machine loads the tokenizer slowly), not a tuned timing.
setDefaultTimeout(60_000);

/** $1,000 per million tokens, in and out: one token costs 1,000 micro-USD (the case). */
const MICRO_USD_PER_TOKEN = 1_000;
const countTokens = await loadTokenizer();

function chatBody(content: string, maxTokens: number, model = "gpt-4o-priced") {
  return { model, max_tokens: maxTokens, messages: [{ role: "user", content }] };
}

/** What the gateway holds for such a call: the o200k count with OpenAI's margin, and max_tokens. */
function reservationTokens(body: ReturnType<typeof chatBody>): { prompt: number; total: number } {
  const prompt = Math.ceil(countPromptForReservation(body, countTokens) * (1 + TOKENIZER_MARGINS.openai));
  return { prompt, total: prompt + body.max_tokens };
}

function send(gateway: GatewayUnderTest, key: string, body: unknown) {
  return gateway.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
}

describe("reservations that fit", () => {
  let stack: GatewayStack;

  beforeAll(async () => {
    stack = await startGatewayStack({ upstream: { chunkDelayMs: 0 } });
    await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["gpt-4o-priced", "gpt-4o-cache-priced"] });
    await stack.seed.price("gpt-4o-priced", 1_000, 1_000);
    // A 1-hour cache write costs twice the input price, as Anthropic's does.
    await stack.seed.price("gpt-4o-cache-priced", 1_000, 1_000, 100, { cacheWrite: 1_250, cacheWrite1h: 2_000 });
  }, SETUP_TIMEOUT_MS);

  afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

  test("a $0.10 quota admits a first call on a $1,000-per-million model whose prompt and max_tokens fit it", async () => {
    const token = await stack.seed.token({ userId: stack.userId, quotaLimit: 100_000 });
    const body = chatBody("Say hi in one word.", 20);
    // Far smaller than the body's bytes plus max_tokens, which is what used to be held (and was refused).
    expect(reservationTokens(body).total * MICRO_USD_PER_TOKEN).toBeLessThan(100_000);
    expect((JSON.stringify(body).length + 20) * MICRO_USD_PER_TOKEN).toBeGreaterThan(100_000);
    stack.upstream.enqueue({ kind: "ok", content: "Hi", promptTokens: 13, completionTokens: 1 });
    const response = await send(stack.gateway, token.secret, body);
    expect(response.status).toBe(200);
    await stack.gateway.services.usage.flush();
    expect((await stack.seed.tokenRow(token.row.id)).usedQuota).toBe(14 * MICRO_USD_PER_TOKEN);
  });

  test("a call whose fitted reservation equals the remaining quota is admitted, and refused one micro-USD short of it", async () => {
    const body = chatBody("Summarise the meeting notes below in three bullet points, please.", 30);
    const needed = reservationTokens(body).total * MICRO_USD_PER_TOKEN;
    const exact = await stack.seed.token({ userId: stack.userId, quotaLimit: needed });
    stack.upstream.enqueue({ kind: "ok", content: "Done", promptTokens: 15, completionTokens: 1 });
    expect((await send(stack.gateway, exact.secret, body)).status).toBe(200);

    const short = await stack.seed.token({ userId: stack.userId, quotaLimit: needed - 1 });
    const before = stack.upstream.requests.length;
    const refused = await send(stack.gateway, short.secret, body);
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.code).toBe("insufficient_quota");
    expect(stack.upstream.requests.length).toBe(before);
  });

  test("the worst case bills the whole prompt at the dearest cache-write price: a quota that covers it at the input price only is refused", async () => {
    const body = chatBody("Summarise the meeting notes below in three bullet points, please.", 30, "gpt-4o-cache-priced");
    const { prompt } = reservationTokens(body);
    const atWritePrice = prompt * 2 * MICRO_USD_PER_TOKEN + body.max_tokens * MICRO_USD_PER_TOKEN;
    const atInputPrice = (prompt + body.max_tokens) * MICRO_USD_PER_TOKEN;
    const short = await stack.seed.token({ userId: stack.userId, quotaLimit: atWritePrice - 1 });
    expect(atWritePrice - 1).toBeGreaterThan(atInputPrice);
    const before = stack.upstream.requests.length;
    const refused = await send(stack.gateway, short.secret, body);
    expect(refused.status).toBe(429);
    expect(stack.upstream.requests.length).toBe(before);

    const enough = await stack.seed.token({ userId: stack.userId, quotaLimit: atWritePrice });
    stack.upstream.enqueue({ kind: "ok", content: "Done", promptTokens: 15, completionTokens: 1 });
    expect((await send(stack.gateway, enough.secret, body)).status).toBe(200);
  });

  test("after spending part of a quota, a call that fits exactly what is left is admitted and one that cannot is refused", async () => {
    const first = chatBody("First question of the day.", 10);
    const second = chatBody("Second question of the day, a little longer than the first one.", 25);
    const firstTokens = reservationTokens(first);
    const secondTokens = reservationTokens(second).total;
    // The first call costs exactly what it held, so nothing stays held once it is settled.
    const quota = (firstTokens.total + secondTokens) * MICRO_USD_PER_TOKEN;
    const token = await stack.seed.token({ userId: stack.userId, quotaLimit: quota });
    stack.upstream.enqueue({ kind: "ok", content: "one", promptTokens: firstTokens.prompt, completionTokens: 10 });
    expect((await send(stack.gateway, token.secret, first)).status).toBe(200);

    const oneTokenMore = { ...second, max_tokens: second.max_tokens + 1 };
    expect((await send(stack.gateway, token.secret, oneTokenMore)).status).toBe(429);
    stack.upstream.enqueue({ kind: "ok", content: "two", promptTokens: 20, completionTokens: 25 });
    expect((await send(stack.gateway, token.secret, second)).status).toBe(200);
  });

  test("a prompt that alone costs more than the remaining quota is refused before any upstream is called", async () => {
    const token = await stack.seed.token({ userId: stack.userId, quotaLimit: 50 * MICRO_USD_PER_TOKEN });
    const body = chatBody("word ".repeat(60), 1);
    expect(countTokens(body.messages[0]!.content)).toBeGreaterThan(50);
    const before = stack.upstream.requests.length;
    const response = await send(stack.gateway, token.secret, body);
    expect(response.status).toBe(429);
    expect(stack.upstream.requests.length).toBe(before);
  });

  test("an owner's balance admits a call whose fitted reservation equals it, and refuses one a micro-USD short", async () => {
    const body = chatBody("Translate 'good morning' into French.", 12);
    const needed = reservationTokens(body).total * MICRO_USD_PER_TOKEN;
    const rich = await stack.seed.user({ balance: needed, balanceUnlimited: false });
    const poor = await stack.seed.user({ balance: needed - 1, balanceUnlimited: false });
    const richToken = await stack.seed.token({ userId: rich.id });
    const poorToken = await stack.seed.token({ userId: poor.id });
    stack.upstream.enqueue({ kind: "ok", content: "Bonjour", promptTokens: 10, completionTokens: 2 });
    expect((await send(stack.gateway, richToken.secret, body)).status).toBe(200);
    expect((await send(stack.gateway, poorToken.secret, body)).status).toBe(429);
  });

  test("a model whose upstream tokenizer differs from o200k is held with its family's wider margin", async () => {
    await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["llama-priced"] });
    await stack.seed.price("llama-priced", 1_000, 1_000);
    const body = { ...chatBody("Name three rivers in Europe and their lengths.", 10), model: "llama-priced" };
    const raw = countPromptForReservation(body, countTokens);
    const held = (Math.ceil(raw * (1 + TOKENIZER_MARGINS.other)) + body.max_tokens) * MICRO_USD_PER_TOKEN;
    const tooSmall = await stack.seed.token({ userId: stack.userId, quotaLimit: held - 1 });
    expect((await send(stack.gateway, tooSmall.secret, body)).status).toBe(429);
    const enough = await stack.seed.token({ userId: stack.userId, quotaLimit: held });
    stack.upstream.enqueue({ kind: "ok", content: "Danube", promptTokens: 20, completionTokens: 5 });
    expect((await send(stack.gateway, enough.secret, body)).status).toBe(200);
  });

  test("an image by URL is held at its documented maximum, so a quota too small for it refuses the call", async () => {
    const text = chatBody("What is in this picture?", 10);
    const withImage = {
      ...text,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is in this picture?" },
            { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
          ],
        },
      ],
    };
    const token = await stack.seed.token({ userId: stack.userId, quotaLimit: 1_000 * MICRO_USD_PER_TOKEN });
    const before = stack.upstream.requests.length;
    expect((await send(stack.gateway, token.secret, withImage)).status).toBe(429);
    expect(stack.upstream.requests.length).toBe(before);
    stack.upstream.enqueue({ kind: "ok", content: "A cat", promptTokens: 20, completionTokens: 2 });
    expect((await send(stack.gateway, token.secret, text)).status).toBe(200);
  });
});

describe("reservations at the edge of a quota shared by two instances on one Postgres", () => {
  const two = twoGatewaysForBlock();

  test.if(usePostgres)("what one instance left of a quota is admitted to the last micro-USD by the other, and no further", async () => {
    const { seed, database, upstream, first, second } = two.current;
    const user = await seed.user();
    await seed.channel({ baseUrl: upstream.url, models: ["gpt-4o-priced"] });
    await seed.price("gpt-4o-priced", 1_000, 1_000);
    const firstCall = chatBody("Hello from the first instance.", 10);
    const secondCall = chatBody("Hello from the second instance, with a few more words.", 15);
    const firstTokens = reservationTokens(firstCall);
    const quota = (firstTokens.total + reservationTokens(secondCall).total) * MICRO_USD_PER_TOKEN;
    const token = await seed.token({ userId: user.id, quotaLimit: quota });
    upstream.enqueue({ kind: "ok", content: "one", promptTokens: firstTokens.prompt, completionTokens: 10 });
    expect((await send(first, token.secret, firstCall)).status).toBe(200);
    await first.services.usage.flush();
    await waitFor(async () => (await seed.tokenRow(token.row.id)).usedQuota === firstTokens.total * MICRO_USD_PER_TOKEN, "the first call written");

    expect((await send(second, token.secret, { ...secondCall, max_tokens: 16 })).status).toBe(429);
    upstream.enqueue({ kind: "ok", content: "two", promptTokens: 20, completionTokens: 15 });
    expect((await send(second, token.secret, secondCall)).status).toBe(200);
  });
});
