import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { migrateDatabase, requestLogs, tokens } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import { runCli, serverFilesForBlock, startGatewayProcess } from "./helpers/gateway-process";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

const root = join(import.meta.dir, "..");

let upstream: FakeOpenAIUpstream;
const files = serverFilesForBlock("tollgate-process-");
// Only the shutdown flush can write the usage of this test.
const environment = () => files.environment({ USAGE_FLUSH_INTERVAL_MS: "600000" });

const cli = (...argv: string[]) => runCli(environment(), ...argv);
const startProcess = () => startGatewayProcess(environment());

beforeAll(async () => {
  upstream = await startFakeOpenAIUpstream();
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await upstream?.close();
}, SETUP_TIMEOUT_MS);

describe("the gateway process", () => {
  test("serves calls set up by the CLI and writes their usage when stopped with SIGTERM", async () => {
    const gateway = await startProcess();
    try {
      // In embedded mode these commands are forwarded to the running server, which owns the data folder.
      expect(cli("user", "create", "--name", "alice").exitCode).toBe(0);
      const channel = cli("channel", "add", "--name", "fake", "--type", "openai-compatible", "--base-url", upstream.url, "--key", "sk-fake-upstream", "--models", "gpt-4o-mini");
      expect(channel.stderr).toBe("");
      expect(cli("model", "price", "--model", "gpt-4o-mini", "--input", "1", "--output", "2").exitCode).toBe(0);
      const created = cli("token", "create", "--user", "alice", "--name", "laptop", "--quota", "5", "--json");
      expect(created.exitCode).toBe(0);
      const { id, key } = JSON.parse(created.stdout) as { id: number; key: string };
      expect(key).toStartWith("sk-");

      upstream.enqueue({ kind: "ok", content: "hi", promptTokens: 1000, completionTokens: 500 });
      const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] }),
      });
      expect(response.status).toBe(200);
      await response.text();

      gateway.child.kill("SIGTERM");
      expect(await gateway.child.exited).toBe(0);
      expect(gateway.output()).not.toContain(key);
      expect(gateway.output()).not.toContain("sk-fake-upstream");

      const handle = await files.open();
      try {
        await migrateDatabase(handle);
        const logs = await handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, id));
        expect(logs).toHaveLength(1);
        // 1000 x $1/1M + 500 x $2/1M = $0.002
        expect(logs[0]).toMatchObject({ promptTokens: 1000, completionTokens: 500, cost: 2000, status: 200 });
        const [row] = await handle.db.select().from(tokens).where(eq(tokens.id, id));
        expect(row!.usedQuota).toBe(2000);
      } finally {
        await handle.close();
      }
    } finally {
      gateway.child.kill("SIGKILL");
    }
    // Starts a process on a fresh embedded database and runs four CLI processes: seconds, not milliseconds.
  }, SETUP_TIMEOUT_MS);
});

describe("request log lines", () => {
  test("every /v1 request prints one JSON line with its request id and never the key", async () => {
    const gateway = await startProcess();
    try {
      const refused = await fetch(`${gateway.baseUrl}/chat/completions`, {
        method: "POST",
        headers: { authorization: "Bearer sk-not-a-real-key-123456", "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] }),
      });
      expect(refused.status).toBe(401);
      const requestId = refused.headers.get("x-request-id");
      expect(requestId).toMatch(/^req_/);
      const line = await waitForLine(gateway.output, requestId!);
      expect(JSON.parse(line)).toMatchObject({ message: "request", requestId, status: 401, error: "invalid_api_key" });
      expect(gateway.output()).not.toContain("sk-not-a-real-key-123456");
    } finally {
      gateway.child.kill("SIGKILL");
    }
  }, SETUP_TIMEOUT_MS);
});

async function waitForLine(output: () => string, needle: string): Promise<string> {
  for (;;) {
    const line = output().split("\n").find((candidate) => candidate.includes(needle));
    if (line) return line;
    await Bun.sleep(10);
  }
}

describe("graceful stop", () => {
  test("SIGTERM lets an in-flight stream finish, writes its usage, and exits", async () => {
    const slow = await startFakeOpenAIUpstream({ chunkDelayMs: 40 });
    const gateway = await startProcess();
    try {
      expect(cli("channel", "add", "--name", "slow", "--base-url", slow.url, "--key", "sk-slow-upstream", "--models", "slow-model").exitCode).toBe(0);
      const created = cli("token", "create", "--user", "alice", "--name", "stream", "--json");
      const { id, key } = JSON.parse(created.stdout) as { id: number; key: string };
      slow.enqueue({ kind: "ok", content: "one two three four five six seven eight nine ten", completionTokens: 10 });
      const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "slow-model", stream: true, messages: [{ role: "user", content: "count" }] }),
      });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      let text = new TextDecoder().decode((await reader.read()).value);
      gateway.child.kill("SIGTERM");
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
      expect(await gateway.child.exited).toBe(0);
      const handle = await files.open();
      try {
        const logs = await handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, id));
        expect(logs).toHaveLength(1);
        expect(logs[0]).toMatchObject({ status: 200, stream: true, completionTokens: 10 });
      } finally {
        await handle.close();
      }
    } finally {
      gateway.child.kill("SIGKILL");
      await slow.close();
    }
  }, SETUP_TIMEOUT_MS);
});
