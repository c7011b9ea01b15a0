import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { channels, requestLogs, usageHourly } from "@tollgate/db";
import { type ConsoleUnderTest, startConsole, type SignedInUser } from "./console-fixture";

let harness: ConsoleUnderTest;
let admin: SignedInUser;
let alice: SignedInUser;
let bob: SignedInUser;

const start = new Date("2026-03-01T00:00:00.000Z");
/** More than one page of the export (1000 rows a query), so that paging is exercised. */
const ALICE_ROWS = 2100;

beforeAll(async () => {
  harness = await startConsole();
  admin = await harness.signedInUser({ name: "root", role: "admin" });
  alice = await harness.signedInUser({ name: "alice" });
  bob = await harness.signedInUser({ name: "bob" });
  const db = harness.database.handle.db;
  const [channel] = await db.insert(channels).values({ name: "primary", baseUrl: "http://127.0.0.1:1/v1", apiKeyEncrypted: "x", models: ["m"] }).returning({ id: channels.id });
  const rows: (typeof requestLogs.$inferInsert)[] = [];
  for (let index = 0; index < ALICE_ROWS; index++) {
    rows.push({
      // Several rows share a timestamp: the keyset on (created_at, id) must neither skip nor repeat them.
      createdAt: new Date(start.getTime() + Math.floor(index / 3) * 1000),
      requestId: `req_alice_${index}`,
      userId: alice.id,
      tokenId: 1,
      tokenName: index === 0 ? '=HYPERLINK("http://evil.example","click")' : "alice's token",
      endpoint: "chat.completions",
      model: "gpt-4o-mini",
      upstreamModel: "gpt-4o-mini-2024",
      channelId: channel!.id,
      status: index % 10 === 0 ? 500 : 200,
      cost: 1234,
      latencyMs: 100,
    });
  }
  rows.push({ createdAt: new Date(start.getTime() + 5000), requestId: "req_bob_0", userId: bob.id, tokenId: 2, tokenName: "-bob", endpoint: "chat.completions", model: "@model", status: 200, cost: 7, latencyMs: 9 });
  // Outside the range.
  rows.push({ createdAt: new Date("2026-02-01T00:00:00Z"), requestId: "req_old", userId: alice.id, tokenId: 1, endpoint: "chat.completions", model: "m", status: 200, latencyMs: 1 });
  await db.insert(requestLogs).values(rows);
  await db.insert(usageHourly).values([
    { hour: start, userId: alice.id, tokenId: 1, model: "gpt-4o-mini", channelId: channel!.id, requests: 3, errors: 1, cost: 3702, latencyMsSum: 300, latencyCount: 3 },
    { hour: start, userId: bob.id, tokenId: 2, model: "+model", channelId: 0, requests: 1, errors: 1, cost: 0 },
    { hour: new Date("2026-02-01T00:00:00Z"), userId: alice.id, tokenId: 1, model: "old", channelId: 0, requests: 1 },
  ]);
}, 60_000);

afterAll(() => harness?.close());

const range = "from=2026-03-01T00:00:00.000Z&to=2026-03-02T00:00:00.000Z";

function download(path: string, cookie?: string): Promise<Response> {
  return harness.console.handle(new Request(`http://localhost${path}`, { headers: cookie ? { cookie } : {} })) as Promise<Response>;
}

function records(text: string): string[] {
  return text.split("\r\n").filter((line) => line !== "");
}

describe("CSV export of the request log", () => {
  test("an administrator downloads every row of the range, oldest first, across pages, as an attachment", async () => {
    const response = await download(`/export/logs.csv?${range}`, admin.cookie);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="tollgate-logs-2026-03-01-to-2026-03-02.csv"');
    const lines = records(await response.text());
    expect(lines[0]).toStartWith("time,request_id,endpoint,user,token,model,upstream_model,channel,status,");
    expect(lines).toHaveLength(1 + ALICE_ROWS + 1);
    const requestIds = lines.slice(1).map((line) => line.split(",")[1]);
    expect(new Set(requestIds).size).toBe(ALICE_ROWS + 1);
    expect(requestIds).not.toContain("req_old");
    expect(lines[1]).toBe(
      `2026-03-01T00:00:00.000Z,req_alice_0,chat.completions,alice,"'=HYPERLINK(""http://evil.example"",""click"")",gpt-4o-mini,gpt-4o-mini-2024,primary,500,,0,0,0,false,token,,0.001234,100,,false,,0,0,0.000000`,
    );
    // User-chosen text that a spreadsheet would run is defused; numbers are left alone.
    expect(lines.find((line) => line.includes("req_bob_0"))).toContain(",bob,'-bob,'@model,");
  });

  test("filters narrow the export as they narrow the logs page", async () => {
    const errors = records(await (await download(`/export/logs.csv?${range}&status=error&userId=${alice.id}`, admin.cookie)).text());
    expect(errors).toHaveLength(1 + ALICE_ROWS / 10);
    expect(errors.slice(1).every((line) => line.includes(",500,"))).toBe(true);
  });

  test("a user exports only their own calls, without channels, and may not ask for another user's or a channel", async () => {
    const own = records(await (await download(`/export/logs.csv?${range}`, bob.cookie)).text());
    expect(own).toHaveLength(2);
    expect(own[1]).toContain("req_bob_0");
    const aliceOwn = records(await (await download(`/export/logs.csv?${range}`, alice.cookie)).text());
    expect(aliceOwn).toHaveLength(1 + ALICE_ROWS);
    expect(aliceOwn[1]).not.toContain("primary");
    expect(aliceOwn[1]).not.toContain("gpt-4o-mini-2024");
    const others = await download(`/export/logs.csv?${range}&userId=${alice.id}`, bob.cookie);
    expect(others.status).toBe(403);
    expect(await others.text()).not.toContain("req_alice");
    expect((await download(`/export/logs.csv?${range}&channelId=1`, bob.cookie)).status).toBe(403);
  });

  test("without a session the answer is 401; without a valid range, 400", async () => {
    expect((await download(`/export/logs.csv?${range}`)).status).toBe(401);
    expect((await download(`/export/usage.csv?${range}`, "tollgate_session=forged")).status).toBe(401);
    expect((await download("/export/logs.csv", admin.cookie)).status).toBe(400);
    expect((await download("/export/logs.csv?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z", admin.cookie)).status).toBe(400);
  });
});

describe("CSV export of the hourly rollup", () => {
  test("an administrator gets every user's rows of the range with names, exact spend and latency sums", async () => {
    const response = await download(`/export/usage.csv?${range}`, admin.cookie);
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="tollgate-usage-2026-03-01-to-2026-03-02.csv"');
    expect(records(await response.text())).toEqual([
      "hour,user,token,model,channel,requests,errors,prompt_tokens,completion_tokens,cached_tokens,cost_usd,latency_ms_sum,latency_count,cache_write_tokens,cache_write_1h_tokens,cache_savings_usd",
      `2026-03-01T00:00:00.000Z,alice,1,gpt-4o-mini,primary,3,1,0,0,0,0.003702,300,3,0,0,0.000000`,
      `2026-03-01T00:00:00.000Z,bob,2,'+model,,1,1,0,0,0,0.000000,0,0,0,0,0.000000`,
    ]);
  });

  test("a user gets only their own rows, and is refused another user's", async () => {
    const own = records(await (await download(`/export/usage.csv?${range}`, bob.cookie)).text());
    expect(own).toHaveLength(2);
    expect(own[1]).toContain(",bob,");
    expect((await download(`/export/usage.csv?${range}&userId=${alice.id}`, bob.cookie)).status).toBe(403);
  });
});
