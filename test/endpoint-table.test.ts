import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requestLogs, storedResponses } from "@tollgate/db";
import { createApp } from "@tollgate/gateway/app";
import { ENDPOINT_JOBS, ENDPOINT_TABLE } from "@tollgate/gateway/endpoint-table";
import type { HandlerRow } from "@tollgate/gateway/pipeline/endpoint";
import { asc, eq } from "drizzle-orm";
import { type GatewayStack, seeder, startGatewayStack, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";
import { toyShoutCodec } from "./helpers/toy-shout-codec";

let stack: GatewayStack;
let seed: ReturnType<typeof seeder>;
let toyGateway: ReturnType<typeof createApp>;
let channelId: number;
/** Lets the toy handler's answer out (set per test). */
let releaseSlowToy: () => void = () => {};
let slowToyStarted: () => void = () => {};

const slowToyRow: HandlerRow = {
  method: "GET",
  path: "/v1/toys/slow/{id}",
  endpoint: "toys.slow",
  handler: async ({ params, record }) => {
    const released = new Promise<void>((resolve) => {
      releaseSlowToy = resolve;
    });
    slowToyStarted();
    await released;
    return Response.json({ id: params.id }, { headers: record.answerHeaders() });
  },
};

const BASE = "http://gateway.test";

function call(app: { handle(request: Request): Promise<Response> }, method: string, path: string, secret: string, body?: unknown) {
  return app.handle(
    new Request(`${BASE}${path}`, {
      method,
      headers: { authorization: `Bearer ${secret}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}

async function logsOf(tokenId: number) {
  await stack.gateway.services.usage.flush();
  return stack.database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, tokenId)).orderBy(asc(requestLogs.id));
}

beforeAll(async () => {
  stack = await startGatewayStack({ gateway: { socketAddress: "203.0.113.9" } });
  seed = stack.seed;
  channelId = (await seed.channel({ baseUrl: stack.upstream.url, models: ["gpt-4o-mini"] })).id;
  await seed.price("gpt-4o-mini", 1, 2);
  // The gateway as app.ts builds it, with two rows more: a toy codec and a toy plain handler.
  toyGateway = createApp({
    services: stack.gateway.services,
    socketAddress: () => "203.0.113.9",
    endpoints: [...ENDPOINT_TABLE, { method: "POST", path: "/v1/toys/shout", codec: toyShoutCodec }, slowToyRow],
  });
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

describe("an endpoint added as one codec and one table row", () => {
  test("is served through the real pipeline: routed to the model's channel, answered, billed and logged", async () => {
    const { secret, row } = await seed.token({ userId: stack.userId });
    stack.upstream.enqueue({ kind: "ok", content: "hello there", promptTokens: 1000, completionTokens: 500 });
    const response = await call(toyGateway, "POST", "/v1/toys/shout", secret, { model: "gpt-4o-mini", text: "say hello" });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ shout: "HELLO THERE" });
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
    expect(response.headers.get("x-tollgate-cost-usd")).not.toBeNull();
    const forwarded = stack.upstream.requests.at(-1)!;
    expect((forwarded.body as { messages: Array<{ content: string }> }).messages[0]!.content).toBe("say hello");
    const [logged] = await waitFor(async () => ((await logsOf(row.id)).length === 1 ? logsOf(row.id) : null), "the toy call's log row");
    expect(logged).toMatchObject({ endpoint: "toys.shout", model: "gpt-4o-mini", status: 200, promptTokens: 1000, completionTokens: 500 });
    expect(logged!.cost).toBeGreaterThan(0);
  });

  test("refuses what its codec refuses, in the envelope, and a wrong key before anything", async () => {
    const { secret } = await seed.token({ userId: stack.userId });
    const missing = await call(toyGateway, "POST", "/v1/toys/shout", secret, { model: "gpt-4o-mini" });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { param: string } }).error.param).toBe("text");
    const unauthenticated = await call(toyGateway, "POST", "/v1/toys/shout", "sk-not-a-key", { model: "gpt-4o-mini", text: "x" });
    expect(unauthenticated.status).toBe(401);
  });

  test("is listed by the 404 and 405 answers of that gateway, and unknown to the gateway without the row", async () => {
    const { secret } = await seed.token({ userId: stack.userId });
    const wrongMethod = await call(toyGateway, "GET", "/v1/toys/shout", secret);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
    const unknown = await call(toyGateway, "GET", "/v1/toys/none", secret);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain("POST /v1/toys/shout");
    expect((await call(stack.gateway, "POST", "/v1/toys/shout", secret, { model: "gpt-4o-mini", text: "x" })).status).toBe(404);
  });

  test("a plain handler row runs inside the wrapper: counted in flight while it runs, then logged", async () => {
    const { secret, row } = await seed.token({ userId: stack.userId });
    const before = stack.gateway.services.calls.size;
    const started = new Promise<void>((resolve) => {
      slowToyStarted = resolve;
    });
    const answer = call(toyGateway, "GET", "/v1/toys/slow/toy-7", secret);
    await started;
    expect(stack.gateway.services.calls.size).toBe(before + 1);
    releaseSlowToy();
    const response = await answer;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: "toy-7" });
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
    expect(stack.gateway.services.calls.size).toBe(before);
    const [logged] = await waitFor(async () => ((await logsOf(row.id)).length === 1 ? logsOf(row.id) : null), "the handler's log row");
    expect(logged).toMatchObject({ endpoint: "toys.slow", status: 200, cost: 0 });
  });
});

describe("the endpoint table", () => {
  test("every row is registered by the gateway and admitted by the same rules: a call without a key is refused in its format", async () => {
    for (const row of ENDPOINT_TABLE) {
      const path = row.path.replace(/\{[^}]+\}/g, "some-id");
      const response = await stack.gateway.handle(new Request(`${BASE}${path}`, { method: row.method }));
      // The Gemini API's routes answer as Google answers an unregistered caller: 403 PERMISSION_DENIED.
      const gemini = row.path.startsWith("/v1beta/") || row.path.includes("}:");
      const expected = gemini ? 403 : 401;
      expect({ row: `${row.method} ${row.path}`, status: response.status }).toEqual({ row: `${row.method} ${row.path}`, status: expected });
      const body = (await response.json()) as { type?: string; error: { type: string; status?: string } };
      // Anthropic's routes answer in Anthropic's shape, Gemini's in Google's, every other in OpenAI's envelope.
      expect(body.type === "error").toBe(row.path.startsWith("/v1/messages"));
      expect(body.error.status === "PERMISSION_DENIED").toBe(gemini);
    }
  });
});

describe("count_tokens", () => {
  test("is a codec row of the table, flagged not billed: it holds nothing, even for a token with no quota left", async () => {
    const row = ENDPOINT_TABLE.find((candidate) => candidate.path === "/v1/messages/count_tokens");
    expect(row && "codec" in row && typeof row.codec !== "function" && row.codec.notBilled).toBe(true);
    const { secret } = await seed.token({ userId: stack.userId, quotaLimit: 1 });
    const response = await stack.gateway.handle(
      new Request(`${BASE}/v1/messages/count_tokens`, {
        method: "POST",
        headers: { "x-api-key": secret, "content-type": "application/json", "anthropic-version": "2023-06-01" },
        body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello there" }] }),
      }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("x-tollgate-estimated")).toBe("true");
    expect(((await response.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
  });
});

describe("plain /v1 handlers run inside the one admission and CallRecord wrapper", () => {
  test("GET /v1/models is rate limited like every /v1 call", async () => {
    const { secret } = await seed.token({ userId: stack.userId, rpmLimit: 1 });
    const first = await call(stack.gateway, "GET", "/v1/models", secret);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-limit-requests")).toBe("1");
    const second = await call(stack.gateway, "GET", "/v1/models", secret);
    expect(second.status).toBe(429);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe("rate_limit_exceeded");
  });

  test("GET /v1/models and GET /v1/models/{id} each leave a request-log row, at no cost", async () => {
    const { secret, row } = await seed.token({ userId: stack.userId });
    const listed = await call(stack.gateway, "GET", "/v1/models", secret);
    expect(listed.status).toBe(200);
    expect(listed.headers.get("x-request-id")).toMatch(/^req_/);
    expect((await call(stack.gateway, "GET", "/v1/models/gpt-4o-mini", secret)).status).toBe(200);
    expect((await call(stack.gateway, "GET", "/v1/models/no-such-model", secret)).status).toBe(404);
    const logged = await waitFor(async () => {
      const rows = await logsOf(row.id);
      return rows.length === 3 ? rows : null;
    }, "three log rows");
    expect(logged.map(({ endpoint, model, status, cost }) => ({ endpoint, model, status, cost }))).toEqual([
      { endpoint: "models.list", model: "", status: 200, cost: 0 },
      { endpoint: "models.retrieve", model: "gpt-4o-mini", status: 200, cost: 0 },
      { endpoint: "models.retrieve", model: "no-such-model", status: 404, cost: 0 },
    ]);
  });

  test("a stored-response lookup leaves a request-log row and is rate limited", async () => {
    const { secret, row } = await seed.token({ userId: stack.userId, rpmLimit: 1 });
    const missing = await call(stack.gateway, "GET", "/v1/responses/resp_missing", secret);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-request-id")).toMatch(/^req_/);
    expect((await call(stack.gateway, "DELETE", "/v1/responses/resp_missing", secret)).status).toBe(429);
    const logged = await waitFor(async () => {
      const rows = await logsOf(row.id);
      return rows.length === 2 ? rows : null;
    }, "two log rows");
    expect(logged.map(({ endpoint, status }) => ({ endpoint, status }))).toEqual([
      { endpoint: "responses.retrieve", status: 404 },
      { endpoint: "responses.delete", status: 429 },
    ]);
  });
});

describe("an endpoint module", () => {
  test("the stored-responses module brings its own background job, which purges what expired and keeps the rest", async () => {
    const { row } = await seed.token({ userId: stack.userId });
    const { db } = stack.database.handle;
    const stored = { tokenId: row.id, userId: stack.userId, channelId, native: false, model: "gpt-4o-mini", inputItems: [], response: {} };
    await db.insert(storedResponses).values([
      { ...stored, id: "resp_expired_by_module", expiresAt: new Date(Date.now() - 1000) },
      { ...stored, id: "resp_kept_by_module", expiresAt: new Date(Date.now() + 60_000) },
    ]);
    const purge = ENDPOINT_JOBS.find((job) => job.name === "stored-responses-purge");
    expect(purge).toBeDefined();
    await purge!.run(stack.gateway.services);
    const left = await db.select({ id: storedResponses.id }).from(storedResponses).where(eq(storedResponses.tokenId, row.id));
    expect(left.map(({ id }) => id)).toEqual(["resp_kept_by_module"]);
  });
});
