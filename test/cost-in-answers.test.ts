import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { requestLogs } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type GatewayStack, waitFor } from "./helpers/gateway-fixture";
import { startGatewayStack } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

// A bound on hangs (a busy 2-core machine loads the tokenizer slowly), not a tuned timing.
setDefaultTimeout(60_000);

let stack: GatewayStack;

function chat(key: string, body: Record<string, unknown> = {}) {
  return stack.gateway.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", max_tokens: 50, messages: [{ role: "user", content: "hi" }], ...body }),
    }),
  );
}

beforeAll(async () => {
  stack = await startGatewayStack({ upstream: { chunkDelayMs: 0 } });
  await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["gpt-4o-mini"] });
  // $3 per million prompt tokens, $7 per million completion tokens.
  await stack.seed.price("gpt-4o-mini", 3, 7);
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

describe("x-tollgate-cost-usd", () => {
  test("a whole answer carries its exact cost, the one its request-log row is billed", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    stack.upstream.enqueue({ kind: "ok", content: "hello", promptTokens: 1_234, completionTokens: 567 });
    const response = await chat(token.secret);
    expect(response.status).toBe(200);
    // 1,234 x 3 + 567 x 7 = 7,671 micro-USD.
    expect(response.headers.get("x-tollgate-cost-usd")).toBe("0.007671");
    const [log] = await waitFor(async () => {
      await stack.gateway.services.usage.flush();
      const rows = await stack.database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, token.row.id));
      return rows.length > 0 ? rows : null;
    }, "the request log row");
    expect(log!.cost).toBe(7_671);
  });

  test("a refused call says it cost nothing", async () => {
    const token = await stack.seed.token({ userId: stack.userId, quotaLimit: 1 });
    const response = await chat(token.secret);
    expect(response.status).toBe(429);
    expect(response.headers.get("x-tollgate-cost-usd")).toBe("0.000000");
  });

  test("a streamed answer has no cost header: its headers leave before its usage is known", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    const response = await chat(token.secret, { stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-tollgate-cost-usd")).toBeNull();
    await response.text();
  });
});
