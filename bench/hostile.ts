// Hostile requests against a real gateway process, one at a time, while a prober asks GET /healthz every
// 20 ms: prints, per scenario, the request's status and duration, the slowest /healthz answer while it ran
// (issue 23's target: under 100 ms) and the gateway's RSS growth. Not a test: figures only.
// Usage: bun bench/hostile.ts   (BENCH_DATABASE_URL=postgres://... to run on Postgres)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatTable } from "./lib/format";
import { run, sampleProcess, startService } from "./lib/processes";
import { benchEnv, root } from "./lib/stack";

const requestTimeoutMs = Number(process.env.BENCH_HOSTILE_TIMEOUT_MS ?? 20_000);
const encoder = new TextEncoder();

/** An upstream that misbehaves by path prefix: endless JSON, an endless SSE event, a stream without usage. */
function startHostileUpstream() {
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (path.startsWith("/endless-json/")) {
        return new Response(
          new ReadableStream({
            pull(controller) {
              controller.enqueue(encoder.encode(`{"padding":"${"x".repeat(65_536)}",`));
            },
          }),
          { headers: { "content-type": "application/json" } },
        );
      }
      if (path.startsWith("/endless-event/")) {
        let sent = false;
        return new Response(
          new ReadableStream({
            pull(controller) {
              if (!sent) controller.enqueue(encoder.encode('data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"'));
              sent = true;
              controller.enqueue(encoder.encode("y".repeat(65_536)));
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        );
      }
      // A short stream that never reports usage: the gateway counts the prompt itself.
      const created = Math.floor(Date.now() / 1000);
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ id: "chatcmpl-h", object: "chat.completion.chunk", created, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      return new Response(chunk({ role: "assistant", content: "ok" }, null) + chunk({}, "stop") + "data: [DONE]\n\n", {
        headers: { "content-type": "text/event-stream" },
      });
    },
  });
}

function nestedSchema(): object {
  const defs: Record<string, object> = {};
  for (let level = 0; level < 8; level++) {
    const properties: Record<string, object> = {};
    for (let field = 0; field < 10; field++) properties[`f${field}`] = level < 7 ? { $ref: `#/$defs/d${level + 1}` } : { type: "string" };
    defs[`d${level}`] = { type: "object", properties };
  }
  return { type: "object", properties: { root: { $ref: "#/$defs/d0" } }, $defs: defs };
}

function multipartWithParts(parts: number): { body: Blob; contentType: string } {
  const boundary = "b";
  const one = `--${boundary}\r\nContent-Disposition: form-data; name="x"\r\n\r\n1\r\n`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nhostile-whisper\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF\r\n`;
  return { body: new Blob([head + one.repeat(parts) + `--${boundary}--\r\n`]), contentType: `multipart/form-data; boundary=${boundary}` };
}

interface Scenario {
  name: string;
  request(base: string, key: string, signal: AbortSignal): Promise<Response>;
}

const bigWord = "a".repeat(300_000);
const json = (key: string) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" });
const scenarios: Scenario[] = [
  {
    name: "count_tokens, one 300,000-character word",
    request: (base, key, signal) =>
      fetch(`${base}/v1/messages/count_tokens`, {
        method: "POST", signal, headers: { "x-api-key": key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
        body: JSON.stringify({ model: "hostile-no-usage", messages: [{ role: "user", content: bigWord }] }),
      }),
  },
  {
    name: "stream counted locally, one 300,000-character word",
    request: (base, key, signal) =>
      fetch(`${base}/v1/chat/completions`, {
        method: "POST", signal, headers: json(key),
        body: JSON.stringify({ model: "hostile-no-usage", stream: true, max_tokens: 10, messages: [{ role: "user", content: bigWord }] }),
      }).then(async (response) => new Response(await response.text(), response)),
  },
  {
    name: "Gemini response_format, 8 $defs x 10 refs",
    request: (base, key, signal) =>
      fetch(`${base}/v1/chat/completions`, {
        method: "POST", signal, headers: json(key),
        body: JSON.stringify({
          model: "hostile-gemini", max_tokens: 10, messages: [{ role: "user", content: "hi" }],
          response_format: { type: "json_schema", json_schema: { name: "s", schema: nestedSchema() } },
        }),
      }),
  },
  {
    name: "transcription, 320,000 multipart parts",
    request: (base, key, signal) => {
      const { body, contentType } = multipartWithParts(320_000);
      return fetch(`${base}/v1/audio/transcriptions`, { method: "POST", signal, headers: { authorization: `Bearer ${key}`, "content-type": contentType }, body });
    },
  },
  {
    name: "upstream: endless JSON body",
    request: (base, key, signal) =>
      fetch(`${base}/v1/chat/completions`, {
        method: "POST", signal, headers: json(key),
        body: JSON.stringify({ model: "hostile-endless-json", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
      }).then(async (response) => new Response(await response.text(), response)),
  },
  {
    name: "upstream: endless SSE event",
    request: (base, key, signal) =>
      fetch(`${base}/v1/chat/completions`, {
        method: "POST", signal, headers: json(key),
        body: JSON.stringify({ model: "hostile-endless-event", stream: true, max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
      }).then(async (response) => new Response(await response.text(), response)),
  },
];

/** Probes while the request runs and for a second after it (work it left behind, such as a count, shows too). */
async function probeWhile(base: string, running: Promise<unknown>): Promise<{ slowestMs: number; probes: number }> {
  let done = false;
  void running.finally(() => setTimeout(() => (done = true), 1_000));
  let slowestMs = 0;
  let probes = 0;
  while (!done) {
    const started = performance.now();
    await fetch(`${base}/healthz`).then((response) => response.arrayBuffer());
    slowestMs = Math.max(slowestMs, performance.now() - started);
    probes++;
    await Bun.sleep(20);
  }
  return { slowestMs, probes };
}

const upstream = startHostileUpstream();
const upstreamBase = `http://127.0.0.1:${upstream.port}`;
const dataDir = mkdtempSync(join(tmpdir(), "tollgate-hostile-"));
const gatewayEnv = benchEnv({ PORT: "0", HOST: "127.0.0.1", TOLLGATE_DATA_DIR: dataDir, LOG_LEVEL: "info", LOG_REQUESTS: "false" });
const bunFlags = process.env.BENCH_GATEWAY_BUN_FLAGS?.split(" ").filter(Boolean) ?? [];
const gateway = await startService("gateway", [process.execPath, ...bunFlags, join(root, "apps/server/src/index.ts")], gatewayEnv, root);
try {
  const cli = (...argv: string[]) => run([process.execPath, join(root, "apps/cli/src/index.ts"), ...argv], gatewayEnv, root);
  await cli("user", "create", "--name", "hostile", "--balance", "1000");
  const channel = async (name: string, type: string, baseUrl: string, model: string) =>
    cli("channel", "add", "--name", name, "--type", type, "--base-url", baseUrl, "--key", "sk-upstream-hostile", "--models", model);
  await channel("no-usage", "openai-compatible", `${upstreamBase}/plain/v1`, "hostile-no-usage");
  await channel("gemini", "gemini", `${upstreamBase}/gemini`, "hostile-gemini");
  await channel("whisper", "openai-compatible", `${upstreamBase}/plain/v1`, "hostile-whisper");
  await channel("endless-json", "openai-compatible", `${upstreamBase}/endless-json/v1`, "hostile-endless-json");
  await channel("endless-event", "openai-compatible", `${upstreamBase}/endless-event/v1`, "hostile-endless-event");
  for (const model of ["hostile-no-usage", "hostile-gemini", "hostile-endless-json", "hostile-endless-event"]) {
    await cli("model", "price", "--model", model, "--input", "1", "--output", "2");
  }
  const { key } = JSON.parse(await cli("token", "create", "--user", "hostile", "--name", "hostile", "--quota", "100", "--json")) as { key: string };
  const base = gateway.url.replace(/\/v1$/, "");
  const rows: string[][] = [];
  // BENCH_HOSTILE_ONLY=text runs the scenarios whose name contains it (each twice: cold, then warm).
  const only = process.env.BENCH_HOSTILE_ONLY;
  const chosen = only ? scenarios.filter((scenario) => scenario.name.includes(only)).flatMap((scenario) => [scenario, scenario]) : scenarios;
  for (const scenario of chosen) {
    const rssBefore = sampleProcess(gateway.pid).rssKiB;
    const started = performance.now();
    const outcome = scenario
      .request(base, key, AbortSignal.timeout(requestTimeoutMs))
      .then((response) => `${response.status}`)
      .catch((error: Error) => (error.name === "TimeoutError" ? `no answer in ${requestTimeoutMs / 1000} s` : error.name));
    const probed = await probeWhile(base, outcome);
    const status = await outcome;
    const took = performance.now() - started;
    const rssAfter = sampleProcess(gateway.pid).rssKiB;
    rows.push([
      scenario.name, status, `${took.toFixed(0)} ms`, `${probed.slowestMs.toFixed(1)} ms`, `${probed.probes}`,
      `${((rssAfter - rssBefore) / 1024).toFixed(0)} MB`, probed.slowestMs < 100 ? "met" : "NOT MET",
    ]);
    await Bun.sleep(500);
  }
  console.log(formatTable(["scenario", "status", "took", "slowest /healthz", "probes", "RSS growth", "/healthz < 100 ms"], rows));
} finally {
  await gateway.stop();
  upstream.stop(true);
  rmSync(dataDir, { recursive: true, force: true });
}
