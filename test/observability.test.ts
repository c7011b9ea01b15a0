import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import { type FreshDatabase, freshDatabase } from "./helpers/fresh-database";
import { type GatewayUnderTest, seeder, startGateway } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let database: FreshDatabase;
let upstream: FakeOpenAIUpstream;
let local: GatewayUnderTest;
let remote: GatewayUnderTest;
let seed: ReturnType<typeof seeder>;
let userId: number;

const METRICS_TOKEN = "metrics-token-for-the-test-suite";

function chat(gateway: GatewayUnderTest, key: string) {
  return gateway.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    }),
  );
}

beforeAll(async () => {
  database = await freshDatabase();
  upstream = await startFakeOpenAIUpstream();
  local = await startGateway(database.handle, { socketAddress: "127.0.0.1", metricsToken: METRICS_TOKEN });
  remote = await startGateway(database.handle, { socketAddress: "203.0.113.9", metricsToken: METRICS_TOKEN });
  seed = seeder(database.handle, local.secretBox, [local, remote]);
  userId = (await seed.user()).id;
  await seed.channel({ baseUrl: upstream.url, models: ["gpt-4o-mini"] });
  await seed.price("gpt-4o-mini", 1, 2);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await local?.stop();
  await remote?.stop();
  await upstream?.close();
  await database?.drop();
}, SETUP_TIMEOUT_MS);

describe("GET /metrics", () => {
  test("reports requests, latency, tokens, cost, caches and the usage queue in Prometheus text format", async () => {
    const token = await seed.token({ userId });
    upstream.enqueue({ kind: "ok", promptTokens: 100, completionTokens: 50 });
    expect((await chat(local, token.secret)).status).toBe(200);
    expect((await chat(local, "sk-unknown-key-000000")).status).toBe(401);
    const response = await local.handle(new Request("http://gateway.test/metrics"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    expect(text).toContain('tollgate_requests_total{endpoint="chat.completions",model="gpt-4o-mini",channel="1",status="200"} 1');
    expect(text).toContain('tollgate_tokens_total{model="gpt-4o-mini",kind="prompt"} 100');
    expect(text).toContain('tollgate_cost_microusd_total{model="gpt-4o-mini"} 200');
    expect(text).toMatch(/tollgate_request_duration_seconds_count\{endpoint="chat.completions",model="gpt-4o-mini"\} 1/);
    expect(text).toMatch(/tollgate_cache_events_total\{cache="tokens",event="miss"\} \d+/);
    expect(text).toMatch(/tollgate_usage_queue_depth \d+/);
    expect(text).toContain("# TYPE tollgate_request_duration_seconds histogram");
  });

  test("is refused from other networks unless the metrics token is sent", async () => {
    expect((await remote.handle(new Request("http://gateway.test/metrics"))).status).toBe(403);
    const withToken = await remote.handle(new Request("http://gateway.test/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }));
    expect(withToken.status).toBe(200);
  });

  test("counts rate-limit refusals and upstream errors", async () => {
    const token = await seed.token({ userId, rpmLimit: 1 });
    expect((await chat(local, token.secret)).status).toBe(200);
    expect((await chat(local, token.secret)).status).toBe(429);
    const other = await seed.token({ userId });
    upstream.enqueue({ kind: "error", status: 503 });
    expect((await chat(local, other.secret)).status).toBe(503);
    const text = await (await local.handle(new Request("http://gateway.test/metrics"))).text();
    expect(text).toMatch(/tollgate_rate_limit_refusals_total\{limit="requests"\} [1-9]/);
    expect(text).toContain('tollgate_upstream_errors_total{channel="1",status="503"} 1');
  });
});

describe("shared rate limits on Redis", () => {
  test("two instances on one Redis share a token's requests-per-minute limit", async () => {
    const prefix = `tollgate:test:${crypto.randomUUID()}:`;
    const first = await startGateway(database.handle, { redisUrl: "redis://127.0.0.1:6379", redisKeyPrefix: prefix });
    const second = await startGateway(database.handle, { redisUrl: "redis://127.0.0.1:6379", redisKeyPrefix: prefix });
    try {
      const token = await seed.token({ userId, rpmLimit: 3 });
      const statuses: number[] = [];
      for (const gateway of [first, second, first, second, first, second]) statuses.push((await chat(gateway, token.secret)).status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(3);
      expect(statuses.slice(3)).toEqual([429, 429, 429]);
    } finally {
      await first.stop();
      await second.stop();
    }
  });
});
