import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { migrateDatabase, requestLogs, tokens } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import { usePostgres } from "./helpers/fresh-database";
import { waitFor } from "./helpers/gateway-fixture";
import { type GatewayProcess, runCli, serverFilesForBlock, startGatewayProcess } from "./helpers/gateway-process";
import { startTcpProxy, type TcpProxy } from "./helpers/tcp-proxy";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

// Faults of the whole process (SIGKILL, SIGTERM during an outage, the drain limit): the usage a process
// accepted must reach the database exactly once, through its spool if not otherwise.

let upstream: FakeOpenAIUpstream;
let slow: FakeOpenAIUpstream;
const running: GatewayProcess[] = [];

beforeAll(async () => {
  upstream = await startFakeOpenAIUpstream();
  slow = await startFakeOpenAIUpstream({ chunkDelayMs: 100 });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  for (const gateway of running) gateway.child.kill("SIGKILL");
  await upstream?.close();
  await slow?.close();
}, SETUP_TIMEOUT_MS);

// Made after the hooks above, so that its own afterAll (removing the files) runs once the processes are killed.
const files = serverFilesForBlock("tollgate-crash-");
const environment = () =>
  files.environment({
    // Nothing is written behind during these tests: what reaches the database comes from a shutdown or a spool.
    USAGE_FLUSH_INTERVAL_MS: "600000",
    SHUTDOWN_DRAIN_MS: "300",
  });

async function start(overrides: Record<string, string> = {}): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess({ ...environment(), ...overrides });
  running.push(gateway);
  return gateway;
}

function cli(...argv: string[]) {
  const result = runCli(environment(), ...argv);
  if (result.exitCode !== 0) throw new Error(`cli ${argv.slice(0, 2).join(" ")} failed: ${result.stderr}`);
  return result.stdout;
}

function newToken(name: string): { id: number; key: string } {
  return JSON.parse(cli("token", "create", "--user", "crash-owner", "--name", name, "--json")) as { id: number; key: string };
}

async function chat(baseUrl: string, key: string, model = "crash-model", stream = false) {
  return fetch(`${baseUrl}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model, stream, messages: [{ role: "user", content: "hello" }] }),
  });
}

/** The token's request-log rows and spend, read once no gateway holds the (embedded) database. */
async function billed(tokenId: number) {
  const handle = await files.open();
  try {
    await migrateDatabase(handle);
    const logs = await handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, tokenId));
    const [token] = await handle.db.select().from(tokens).where(eq(tokens.id, tokenId));
    return { logs, usedQuota: token!.usedQuota };
  } finally {
    await handle.close();
  }
}

async function stop(gateway: GatewayProcess): Promise<void> {
  gateway.child.kill("SIGTERM");
  expect(await gateway.child.exited).toBe(0);
}

const spoolFiles = () => {
  try {
    return readdirSync(join(files.dataDir, "spool")).filter((name) => name.endsWith(".jsonl"));
  } catch {
    return [];
  }
};

describe("accepted spend survives the process", () => {
  test("kill -9 after 60 answered calls: the next start bills every one of them, exactly once", async () => {
    const first = await start();
    cli("user", "create", "--name", "crash-owner");
    cli("channel", "add", "--name", "fast", "--base-url", upstream.url, "--key", "sk-fake-fast", "--models", "crash-model");
    cli("channel", "add", "--name", "slow", "--base-url", slow.url, "--key", "sk-fake-slow", "--models", "slow-model");
    cli("model", "price", "--model", "crash-model", "--input", "1", "--output", "2");
    cli("model", "price", "--model", "slow-model", "--input", "1", "--output", "2");
    const token = newToken("killed");
    let answered = 0;
    for (let wave = 0; wave < 6; wave++) {
      const responses = await Promise.all(Array.from({ length: 10 }, () => chat(first.baseUrl, token.key)));
      for (const response of responses) {
        expect(response.status).toBe(200);
        await response.text();
        answered++;
      }
    }
    first.child.kill("SIGKILL");
    await first.child.exited;
    expect(spoolFiles().length).toBeGreaterThan(0);

    const second = await start();
    await waitFor(() => second.output().includes("usage spool replayed"), "the spool replay", 30_000);
    await stop(second);
    const { logs, usedQuota } = await billed(token.id);
    expect(logs).toHaveLength(answered);
    expect(new Set(logs.map((log) => log.requestId)).size).toBe(answered);
    expect(logs.every((log) => log.status === 200 && log.cost > 0)).toBe(true);
    expect(usedQuota).toBe(logs.reduce((sum, log) => sum + log.cost, 0));
    expect(spoolFiles()).toEqual([]);
  }, 120_000);

  test("streams still running at the drain limit are cut, billed for what they produced, and logged", async () => {
    const gateway = await start();
    const token = newToken("drained");
    const words = Array.from({ length: 60 }, (_, index) => `word${index}`).join(" ");
    for (let index = 0; index < 3; index++) slow.enqueue({ kind: "ok", content: words, completionTokens: 60 });
    const streams = await Promise.all([0, 1, 2].map(() => chat(gateway.baseUrl, token.key, "slow-model", true)));
    const readers = streams.map((response) => {
      expect(response.status).toBe(200);
      return response.body!.getReader();
    });
    // Each has started: its first chunk arrived.
    for (const reader of readers) await reader.read();
    gateway.child.kill("SIGTERM");
    // The clients read on until the gateway cuts them.
    await Promise.all(
      readers.map(async (reader) => {
        try {
          for (;;) if ((await reader.read()).done) return;
        } catch {
          // Cut mid-stream.
        }
      }),
    );
    expect(await gateway.child.exited).toBe(0);
    const { logs, usedQuota } = await billed(token.id);
    expect(logs).toHaveLength(3);
    for (const log of logs) {
      expect(log.stream).toBe(true);
      // Cut long before its 60 words: billed for some of them, and not for all.
      expect(log.completionTokens).toBeGreaterThan(0);
      expect(log.completionTokens).toBeLessThan(60);
      expect(log.cost).toBeGreaterThan(0);
    }
    expect(usedQuota).toBe(logs.reduce((sum, log) => sum + log.cost, 0));
  }, 120_000);
});

describe("accepted spend survives an outage", () => {
  let proxy: TcpProxy | null = null;

  afterAll(() => {
    proxy?.close();
  });

  test.if(usePostgres)("SIGTERM while Postgres is unreachable: the spend of every answered call is written by the next start", async () => {
    const target = new URL(files.database!.url!);
    proxy = startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(files.database!.url!);
    viaProxy.port = String(proxy.port);
    const gateway = await start({ DATABASE_URL: viaProxy.toString() });
    const token = newToken("outage");
    const call = async () => {
      const response = await chat(gateway.baseUrl, token.key);
      expect(response.status).toBe(200);
      await response.text();
    };
    for (let index = 0; index < 10; index++) await call();
    proxy.down();
    // The token is cached: calls go on during the outage.
    for (let index = 0; index < 10; index++) await call();
    gateway.child.kill("SIGTERM");
    expect(await gateway.child.exited).toBe(0);
    expect(spoolFiles().length).toBeGreaterThan(0);
    proxy.up();

    const next = await start();
    await waitFor(() => next.output().includes("usage spool replayed"), "the spool replay", 30_000);
    await stop(next);
    const { logs, usedQuota } = await billed(token.id);
    expect(logs).toHaveLength(20);
    expect(usedQuota).toBe(logs.reduce((sum, log) => sum + log.cost, 0));
    expect(usedQuota).toBeGreaterThan(0);
  }, 120_000);
});
