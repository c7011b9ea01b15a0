// What the upstream call alone costs, by HTTP client: CPU per request of a process that does nothing but
// POST a chat body to the fake upstream at 32 in flight and read the whole answer, with Bun's fetch (what
// the gateway and the bare proxy use), with node:http (keep-alive agent), and with a minimal HTTP/1.1 client
// written on Bun.connect for this measurement (content-length answers only, no TLS, no chunking, no
// decompression, no pooling limits: a floor, not something to ship). The fake upstream runs pinned to core 1
// and each client to core 0 (taskset), one after the other, BENCH_REPETITIONS (3) rounds.
//   bun bench/upstream-client-floor.ts     (BENCH_CLIENT_REQUESTS per run, default 60000)
// Figures only; never a test. It answers one question: how much of the gateway's CPU per request over a
// bare proxy a different upstream client could take away (docs/benchmarks.md, issue 24).
import { join } from "node:path";
import { formatTable } from "./lib/format";
import { startService } from "./lib/processes";
import { benchEnv, root } from "./lib/stack";

const CLIENTS = ["fetch", "node:http", "Bun.connect"] as const;
type Client = (typeof CLIENTS)[number];

const mode = process.env.BENCH_CLIENT_MODE as Client | undefined;
if (mode) await runClient(mode);
else await main();

/** The measuring side: one client, in this process (spawned by main), prints {"client","cpuUs","rps"}. */
async function runClient(client: Client): Promise<void> {
  const target = new URL(`${process.env.BENCH_UPSTREAM_URL}/chat/completions`);
  const total = Number(process.env.BENCH_CLIENT_REQUESTS ?? 60_000);
  const body = JSON.stringify({ model: "gpt-bench", messages: [{ role: "user", content: "Say hello in one short sentence, please." }] });
  const headers = { "content-type": "application/json", authorization: "Bearer sk-bench-upstream" };
  const call = client === "fetch" ? fetchCall : client === "node:http" ? await nodeHttpCall() : connectCall();

  async function fetchCall(): Promise<string> {
    const answer = await fetch(target, { method: "POST", headers, body, redirect: "manual", signal: new AbortController().signal });
    return answer.text();
  }

  async function nodeHttpCall(): Promise<() => Promise<string>> {
    const http = await import("node:http");
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    return () =>
      new Promise<string>((resolve, reject) => {
        const request = http.request(
          { hostname: target.hostname, port: target.port, path: target.pathname, method: "POST", agent, headers: { ...headers, "content-length": Buffer.byteLength(body) } },
          (response) => {
            const chunks: Buffer[] = [];
            response.on("data", (chunk: Buffer) => chunks.push(chunk));
            response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
          },
        );
        request.on("error", reject);
        request.end(body);
      });
  }

  function connectCall(): () => Promise<string> {
    interface Connection {
      socket: Bun.Socket<undefined> | null;
      buffered: Uint8Array | null;
      waiting: ((text: string) => void) | null;
    }
    const idle: Connection[] = [];
    const decoder = new TextDecoder();
    const head = `POST ${target.pathname} HTTP/1.1\r\nhost: ${target.host}\r\ncontent-type: application/json\r\nauthorization: Bearer sk-bench-upstream\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const request = head + body;
    const answered = (connection: Connection) => {
      const bytes = connection.buffered!;
      let end = -1;
      for (let index = 0; index + 3 < bytes.length; index++) {
        if (bytes[index] === 13 && bytes[index + 1] === 10 && bytes[index + 2] === 13 && bytes[index + 3] === 10) {
          end = index;
          break;
        }
      }
      if (end === -1) return;
      const lengthMatch = /\r\ncontent-length:\s*(\d+)/i.exec(decoder.decode(bytes.subarray(0, end)));
      const length = lengthMatch ? Number(lengthMatch[1]) : 0;
      if (bytes.length < end + 4 + length) return;
      const text = decoder.decode(bytes.subarray(end + 4, end + 4 + length));
      connection.buffered = bytes.length > end + 4 + length ? bytes.subarray(end + 4 + length) : null;
      const waiting = connection.waiting!;
      connection.waiting = null;
      idle.push(connection);
      waiting(text);
    };
    const open = async (): Promise<Connection> => {
      const connection: Connection = { socket: null, buffered: null, waiting: null };
      connection.socket = await Bun.connect({
        hostname: target.hostname,
        port: Number(target.port),
        socket: {
          data(_socket, chunk) {
            connection.buffered = connection.buffered ? Buffer.concat([connection.buffered, chunk]) : chunk;
            answered(connection);
          },
        },
      });
      return connection;
    };
    return async () => {
      const connection = idle.pop() ?? (await open());
      const text = new Promise<string>((resolve) => (connection.waiting = resolve));
      connection.socket!.write(request);
      return text;
    };
  }

  const drive = async (count: number) => {
    let started = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (started++ < count) await call();
      }),
    );
  };
  await drive(8_000);
  const before = process.cpuUsage();
  const startedAt = performance.now();
  await drive(total);
  const used = process.cpuUsage(before);
  const seconds = (performance.now() - startedAt) / 1000;
  console.log(JSON.stringify({ client, cpuUs: (used.user + used.system) / total, rps: total / seconds }));
  process.exit(0);
}

async function main(): Promise<void> {
  const rounds = Math.max(1, Number(process.env.BENCH_REPETITIONS ?? 3));
  const env = benchEnv({ BENCH_UPSTREAM_DELAY_MS: "0" });
  const upstream = await startService("fake upstream", ["taskset", "-c", "1", process.execPath, join(root, "bench/fake-upstream.ts")], env);
  const results = new Map<Client, { cpuUs: number[]; rps: number[] }>(CLIENTS.map((client) => [client, { cpuUs: [], rps: [] }]));
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const client of CLIENTS) {
        const child = Bun.spawn(["taskset", "-c", "0", process.execPath, import.meta.path], {
          env: { ...env, BENCH_CLIENT_MODE: client, BENCH_UPSTREAM_URL: upstream.url },
          stdout: "pipe",
          stderr: "inherit",
        });
        const output = await new Response(child.stdout).text();
        await child.exited;
        const line = JSON.parse(output.trim().split("\n").at(-1)!) as { cpuUs: number; rps: number };
        results.get(client)!.cpuUs.push(line.cpuUs);
        results.get(client)!.rps.push(line.rps);
        console.log(`round ${round}: ${client} ${line.cpuUs.toFixed(1)} us CPU per request, ${line.rps.toFixed(0)} req/s`);
      }
    }
  } finally {
    await upstream.stop();
  }
  const fetchCpu = median(results.get("fetch")!.cpuUs);
  console.log("\n== upstream call only, 32 in flight (median of rounds)");
  console.log(
    formatTable(
      ["client", "CPU us per request", "vs fetch", "req/s"],
      CLIENTS.map((client) => {
        const cpu = median(results.get(client)!.cpuUs);
        return [client, cpu.toFixed(1), `${(cpu / fetchCpu).toFixed(2)}x`, median(results.get(client)!.rps).toFixed(0)];
      }),
    ),
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
