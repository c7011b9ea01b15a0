import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeUsageBatch } from "@tollgate/gateway/accounting/write-usage-batch";
import type { LeaseSubject } from "@tollgate/gateway/accounting/quota-leases";
import { quotaLeases, tokens, users } from "@tollgate/db";
import { eq, like } from "drizzle-orm";
import { type GatewayStack, type GatewayUnderTest, startGatewayStack } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

/** The gateways' clock in these tests: moved by hand to stand on either side of a period's boundary. */
const clock = { now: Date.parse("2026-11-26T12:00:00.000Z") };
const DAY_END = Date.parse("2026-11-27T00:00:00.000Z");

let stack: GatewayStack;

beforeAll(async () => {
  stack = await startGatewayStack({ gateway: { clock: () => clock.now } });
  // Prompts are free, completions cost 1 micro-USD a token: each call costs exactly its 1000-token bound.
  stack.upstream.setDefault({ kind: "ok", promptTokens: 10, completionTokens: 1000 });
  await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["metered"] });
  await stack.seed.price("metered", 0, 1);
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

function chat(gateway: GatewayUnderTest, key: string, options: { stream?: boolean; model?: string } = {}) {
  return gateway.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: options.model ?? "metered",
        max_tokens: 1000,
        stream: options.stream ?? false,
        messages: [{ role: "user", content: "hi" }],
      }),
    }),
  );
}

async function tokenRow(id: number) {
  const [row] = await stack.database.handle.db.select().from(tokens).where(eq(tokens.id, id));
  return row!;
}

describe("budget periods", () => {
  test("a daily quota refuses past its limit until the boundary instant, and not a millisecond longer", async () => {
    clock.now = DAY_END - 60_000;
    const token = await stack.seed.token({ userId: stack.userId, quotaLimit: 3000, budgetPeriod: "daily" });
    const before = [];
    for (let call = 0; call < 4; call++) before.push((await chat(stack.gateway, token.secret)).status);
    expect(before).toEqual([200, 200, 200, 429]);
    clock.now = DAY_END - 1;
    expect((await chat(stack.gateway, token.secret)).status).toBe(429);
    clock.now = DAY_END;
    const after = await chat(stack.gateway, token.secret);
    expect(after.status).toBe(200);
    expect(after.headers.get("x-tollgate-budget-remaining")).toBe("0.002000");
    expect(after.headers.get("x-tollgate-budget-reset")).toBe("2026-11-28T00:00:00.000Z");
    await stack.gateway.services.usage.flush();
    const row = await tokenRow(token.row.id);
    expect(row.usedQuota).toBe(4000);
    expect(row.periodStart?.toISOString()).toBe("2026-11-27T00:00:00.000Z");
    expect(row.periodUsed).toBe(1000);
  });

  test("a call admitted before the reset is billed to the period it was admitted in, even when it ends after", async () => {
    clock.now = DAY_END - 1000;
    const token = await stack.seed.token({ userId: stack.userId, quotaLimit: 3000, budgetPeriod: "daily" });
    const streamed = await chat(stack.gateway, token.secret, { stream: true });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get("x-tollgate-budget-reset")).toBe(new Date(DAY_END).toISOString());
    clock.now = DAY_END;
    await streamed.text();
    await stack.gateway.services.usage.flush();
    let row = await tokenRow(token.row.id);
    expect(row.periodStart?.getTime()).toBe(DAY_END - 86_400_000);
    expect(row.periodUsed).toBe(1000);
    // The new period has its whole budget.
    const statuses = [];
    for (let call = 0; call < 4; call++) statuses.push((await chat(stack.gateway, token.secret)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    await stack.gateway.services.usage.flush();
    row = await tokenRow(token.row.id);
    expect(row.periodStart?.getTime()).toBe(DAY_END);
    expect(row.periodUsed).toBe(3000);
    expect(row.usedQuota).toBe(4000);
  });

  test("slices are taken per period: the old period's lease holds nothing of the new period's budget", async () => {
    clock.now = DAY_END - 5000;
    const token = await stack.seed.token({ userId: stack.userId, quotaLimit: 100_000, budgetPeriod: "daily" });
    expect((await chat(stack.gateway, token.secret)).status).toBe(200);
    clock.now = DAY_END;
    expect((await chat(stack.gateway, token.secret)).status).toBe(200);
    await stack.gateway.services.usage.flush();
    const rows = await stack.database.handle.db.select().from(quotaLeases).where(like(quotaLeases.subject, `token:${token.row.id}@%`));
    const subjects = rows.map((row) => row.subject).sort();
    expect(subjects).toEqual([
      `token:${token.row.id}@${DAY_END - 86_400_000}@daily@UTC`,
      `token:${token.row.id}@${DAY_END}@daily@UTC`,
    ]);
    // Each period's slice is at most what that period has left.
    for (const row of rows) expect(row.amount).toBeLessThanOrEqual(100_000 - 1000);
  });

  test("a daily budget in a time zone resets at that zone's midnight", async () => {
    // Midnight in Tokyo (UTC+9) on 27 November is 15:00 UTC on the 26th.
    const tokyoMidnight = Date.parse("2026-11-26T15:00:00.000Z");
    clock.now = tokyoMidnight - 10_000;
    const token = await stack.seed.token({ userId: stack.userId, quotaLimit: 1000, budgetPeriod: "daily", budgetTimeZone: "Asia/Tokyo" });
    const first = await chat(stack.gateway, token.secret);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-tollgate-budget-reset")).toBe("2026-11-26T15:00:00.000Z");
    clock.now = tokyoMidnight - 1;
    const refused = await chat(stack.gateway, token.secret);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-tollgate-budget-remaining")).toBe("0.000000");
    clock.now = tokyoMidnight;
    const next = await chat(stack.gateway, token.secret);
    expect(next.status).toBe(200);
    expect(next.headers.get("x-tollgate-budget-reset")).toBe("2026-11-27T15:00:00.000Z");
  });

  test("a monthly user budget caps all of the user's tokens together and resets on the first of the month", async () => {
    const monthEnd = Date.parse("2026-12-01T00:00:00.000Z");
    clock.now = monthEnd - 3_600_000;
    const user = await stack.seed.user({ budgetLimit: 2000, budgetPeriod: "monthly" });
    const first = await stack.seed.token({ userId: user.id });
    const second = await stack.seed.token({ userId: user.id });
    expect((await chat(stack.gateway, first.secret)).status).toBe(200);
    const last = await chat(stack.gateway, second.secret);
    expect(last.status).toBe(200);
    expect(last.headers.get("x-tollgate-budget-remaining")).toBe("0.000000");
    expect(last.headers.get("x-tollgate-budget-reset")).toBe("2026-12-01T00:00:00.000Z");
    const refused = await chat(stack.gateway, first.secret);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "insufficient_quota",
      message: expect.stringContaining("budget"),
    });
    clock.now = monthEnd;
    expect((await chat(stack.gateway, second.secret)).status).toBe(200);
    await stack.gateway.services.usage.flush();
    const [row] = await stack.database.handle.db.select().from(users).where(eq(users.id, user.id));
    expect(row!.periodStart?.toISOString()).toBe("2026-12-01T00:00:00.000Z");
    expect(row!.periodUsed).toBe(1000);
    expect(row!.usedTotal).toBe(3000);
  });
});

describe("period spend written behind", () => {
  test("one batch holding two periods of a token counts each in its own period, and a late one of a past period moves only the lifetime total", async () => {
    const token = await stack.seed.token({ userId: stack.userId, quotaLimit: 10_000, budgetPeriod: "daily" });
    const id = token.row.id;
    const yesterday = `token:${id}@${DAY_END - 86_400_000}@daily@UTC` as LeaseSubject;
    const today = `token:${id}@${DAY_END}@daily@UTC` as LeaseSubject;
    const write = (subjects: [LeaseSubject, number][], lastSeq: number) =>
      writeUsageBatch(
        stack.database.handle.db,
        () => ({
          logs: [],
          tokenDeltas: new Map([[id, subjects.reduce((sum, [, amount]) => sum + amount, 0)]]),
          userDeltas: new Map(),
          subjectDeltas: new Map(subjects),
          lastSeq,
        }),
        { spoolId: `test-${crypto.randomUUID()}`, rowsPerInsert: 100, log: () => {} },
      );
    // Listed newest first: the writer orders them.
    const written = await write([[today, 300], [yesterday, 100]], 1);
    expect(written.tokenPeriods.get(id)).toEqual({ periodStart: DAY_END, periodUsed: 300 });
    let row = await tokenRow(id);
    expect(row.periodStart?.getTime()).toBe(DAY_END);
    expect(row.periodUsed).toBe(300);
    expect(row.usedQuota).toBe(400);
    await write([[yesterday, 50]], 1);
    row = await tokenRow(id);
    expect(row.periodUsed).toBe(300);
    expect(row.usedQuota).toBe(450);
  });

  test("spend counted under another period setting (changed meanwhile) is left out of the period", async () => {
    const token = await stack.seed.token({ userId: stack.userId, quotaLimit: 10_000, budgetPeriod: "weekly" });
    const stale = `token:${token.row.id}@${DAY_END}@daily@UTC` as LeaseSubject;
    await writeUsageBatch(
      stack.database.handle.db,
      () => ({ logs: [], tokenDeltas: new Map([[token.row.id, 70]]), userDeltas: new Map(), subjectDeltas: new Map([[stale, 70]]), lastSeq: 1 }),
      { spoolId: `test-${crypto.randomUUID()}`, rowsPerInsert: 100, log: () => {} },
    );
    const row = await tokenRow(token.row.id);
    expect(row.periodStart).toBeNull();
    expect(row.periodUsed).toBe(0);
    expect(row.usedQuota).toBe(70);
  });
});

describe("budget headers", () => {
  test("every answer of a token with a budget carries what is left and when it resets: whole, streamed, models, responses, stored responses, refused, and errors", async () => {
    clock.now = Date.parse("2026-11-26T12:00:00.000Z");
    const token = await stack.seed.token({ userId: stack.userId, quotaLimit: 5_000_000, budgetPeriod: "weekly" });
    const whole = await chat(stack.gateway, token.secret);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("x-tollgate-budget-remaining")).toBe("4.999000");
    expect(whole.headers.get("x-tollgate-budget-reset")).toBe("2026-11-30T00:00:00.000Z");
    const streamed = await chat(stack.gateway, token.secret, { stream: true });
    expect(streamed.headers.get("x-tollgate-budget-remaining")).toBe("4.999000");
    expect(streamed.headers.get("x-tollgate-budget-reset")).toBe("2026-11-30T00:00:00.000Z");
    await streamed.text();
    const unknownModel = await chat(stack.gateway, token.secret, { model: "no-such-model" });
    expect(unknownModel.status).toBe(404);
    expect(unknownModel.headers.get("x-tollgate-budget-remaining")).toBe("4.998000");
    expect(unknownModel.headers.get("x-tollgate-budget-reset")).toBe("2026-11-30T00:00:00.000Z");
    const models = await stack.gateway.handle(new Request("http://gateway.test/v1/models", { headers: { authorization: `Bearer ${token.secret}` } }));
    expect(models.status).toBe(200);
    expect(models.headers.get("x-tollgate-budget-remaining")).toBe("4.998000");
    expect(models.headers.get("x-tollgate-budget-reset")).toBe("2026-11-30T00:00:00.000Z");
    const created = await stack.gateway.handle(
      new Request("http://gateway.test/v1/responses", {
        method: "POST",
        headers: { authorization: `Bearer ${token.secret}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "metered", input: "hi", max_output_tokens: 1000 }),
      }),
    );
    expect(created.status).toBe(200);
    expect(created.headers.get("x-tollgate-budget-remaining")).toBe("4.997000");
    const { id } = (await created.json()) as { id: string };
    const stored = await stack.gateway.handle(new Request(`http://gateway.test/v1/responses/${id}`, { headers: { authorization: `Bearer ${token.secret}` } }));
    expect(stored.status).toBe(200);
    expect(stored.headers.get("x-tollgate-budget-remaining")).toBe("4.997000");
    expect(stored.headers.get("x-tollgate-budget-reset")).toBe("2026-11-30T00:00:00.000Z");
    // A refused id, once the key is known, is answered to the token too.
    for (const [method, path] of [
      ["GET", "/v1/responses/resp_unknown"],
      ["DELETE", "/v1/responses/resp_unknown"],
      ["GET", "/v1/models/no-such-model"],
    ] as const) {
      const missing = await stack.gateway.handle(new Request(`http://gateway.test${path}`, { method, headers: { authorization: `Bearer ${token.secret}` } }));
      expect(missing.status).toBe(404);
      expect(missing.headers.get("x-tollgate-budget-remaining")).toBe("4.997000");
      expect(missing.headers.get("x-tollgate-budget-reset")).toBe("2026-11-30T00:00:00.000Z");
    }
    const small = await stack.seed.token({ userId: stack.userId, quotaLimit: 500, budgetPeriod: "weekly" });
    const refused = await chat(stack.gateway, small.secret);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-tollgate-budget-remaining")).toBe("0.000500");
    expect(refused.headers.get("x-tollgate-budget-reset")).toBe("2026-11-30T00:00:00.000Z");
  });

  test("a lifetime quota has a remaining amount and no reset; a token without any budget has neither header", async () => {
    const lifetime = await stack.seed.token({ userId: stack.userId, quotaLimit: 10_000 });
    const answer = await chat(stack.gateway, lifetime.secret);
    expect(answer.headers.get("x-tollgate-budget-remaining")).toBe("0.009000");
    expect(answer.headers.has("x-tollgate-budget-reset")).toBe(false);
    const unlimited = await stack.seed.token({ userId: stack.userId });
    const free = await chat(stack.gateway, unlimited.secret);
    expect(free.status).toBe(200);
    expect(free.headers.has("x-tollgate-budget-remaining")).toBe(false);
    expect(free.headers.has("x-tollgate-budget-reset")).toBe(false);
  });

  test("with a budget on the token and on its owner, the headers report the tighter one", async () => {
    clock.now = Date.parse("2026-11-26T12:00:00.000Z");
    const user = await stack.seed.user({ budgetLimit: 3000, budgetPeriod: "monthly" });
    const token = await stack.seed.token({ userId: user.id, quotaLimit: 10_000, budgetPeriod: "daily" });
    const first = await chat(stack.gateway, token.secret);
    // Token: 9,000 left until tomorrow; user: 2,000 left until December.
    expect(first.headers.get("x-tollgate-budget-remaining")).toBe("0.002000");
    expect(first.headers.get("x-tollgate-budget-reset")).toBe("2026-12-01T00:00:00.000Z");
    const roomy = await stack.seed.user({ budgetLimit: 1_000_000, budgetPeriod: "monthly" });
    const tight = await stack.seed.token({ userId: roomy.id, quotaLimit: 2000, budgetPeriod: "daily" });
    const second = await chat(stack.gateway, tight.secret);
    expect(second.headers.get("x-tollgate-budget-remaining")).toBe("0.001000");
    expect(second.headers.get("x-tollgate-budget-reset")).toBe("2026-11-27T00:00:00.000Z");
  });
});
