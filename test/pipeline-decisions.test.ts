import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { modelPrices } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type FakeAnthropicUpstream, startFakeAnthropicUpstream } from "./helpers/fake-anthropic-upstream";
import { type GatewayStack, startGatewayStack, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let stack: GatewayStack;
let anthropic: FakeAnthropicUpstream;

const BASE = "http://gateway.test";

function post(path: string, secret: string, body: unknown) {
  return stack.gateway.handle(
    new Request(`${BASE}${path}`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body: JSON.stringify(body) }),
  );
}

beforeAll(async () => {
  stack = await startGatewayStack();
  anthropic = await startFakeAnthropicUpstream();
  // "mixed-model" is served by two channel types at the same priority and weight: the routed order is random.
  await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["mixed-model", "budget-model"] });
  await stack.seed.channel({ type: "anthropic", baseUrl: anthropic.url, models: ["mixed-model", "claude-only"] });
  await stack.seed.price("budget-model", 0, 100);
  await stack.seed.price("claude-only", 0, 100);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.stop();
  await anthropic?.close();
}, SETUP_TIMEOUT_MS);

describe("a capability gap is decided the same way whatever the routed order", () => {
  test("a parameter only one channel type carries is served by that channel every time, and no channel is blamed", async () => {
    const { secret } = await stack.seed.token({ userId: stack.userId });
    const anthropicCallsBefore = anthropic.requests.length;
    for (let call = 0; call < 20; call++) {
      // Anthropic cannot carry n > 1 (400 unsupported_parameter from its adapter); OpenAI-compatible can.
      const response = await post("/v1/chat/completions", secret, { model: "mixed-model", n: 2, messages: [{ role: "user", content: "hi" }] });
      expect(response.status).toBe(200);
    }
    expect(anthropic.requests.length).toBe(anthropicCallsBefore);
    expect(stack.upstream.requests.at(-1)!.body.n).toBe(2);
    // Passed over, never tried: no channel cooling down or left probing.
    expect([...stack.gateway.services.health.snapshot()]).toEqual([]);
  });

  test("when no channel of the model can carry it, the answer is 400 unsupported_parameter every time", async () => {
    const { secret } = await stack.seed.token({ userId: stack.userId });
    for (let call = 0; call < 5; call++) {
      const response = await post("/v1/chat/completions", secret, { model: "claude-only", n: 2, messages: [{ role: "user", content: "hi" }] });
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as { error: { code: string; param: string } };
      expect(error).toMatchObject({ code: "unsupported_parameter", param: "n" });
    }
    expect([...stack.gateway.services.health.snapshot()]).toEqual([]);
  });
});

describe("the pipeline applies the defaults", () => {
  test("a Responses call that names no max_output_tokens holds its model's own default, not the global one", async () => {
    await stack.database.handle.db.update(modelPrices).set({ defaultMaxTokens: 10 }).where(eq(modelPrices.model, "budget-model"));
    await waitFor(async () => (await stack.gateway.services.catalog.get()).prices.get("budget-model")?.defaultMaxTokens === 10, "the model's default in the catalog");
    // $100 per million output tokens: the model's 10 tokens hold $0.001, the global 4096 would hold $0.41.
    const { secret } = await stack.seed.token({ userId: stack.userId, quotaLimit: 50_000 });
    stack.upstream.enqueue({ kind: "ok", content: "ok", promptTokens: 1, completionTokens: 1 });
    const response = await post("/v1/responses", secret, { model: "budget-model", input: "hi" });
    expect(response.status).toBe(200);
  });

  test("a channel that cannot serve the endpoint is left out before quota is held: 400 unsupported_endpoint, not 429", async () => {
    // Nothing could be held for this token: a 429 would mean quota was reserved before the channel was ruled out.
    const { secret } = await stack.seed.token({ userId: stack.userId, quotaLimit: 1 });
    const response = await post("/v1/images/generations", secret, { model: "claude-only", prompt: "a cat" });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("unsupported_endpoint");
  });
});
