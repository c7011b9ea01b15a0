import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import { clientAddressResolver, createApp } from "@tollgate/gateway/app";
import { createChannelProber } from "@tollgate/upstream";
import { createConsole } from "../apps/console/src/create-console";
import type { GatewayServices } from "@tollgate/gateway/gateway-services";
import type { LogLevel } from "@tollgate/gateway/logger";
import { requestLogs } from "@tollgate/db";
import { eq } from "drizzle-orm";
import OpenAI from "openai";
import { type GatewayStack, startGatewayStack, waitFor } from "./helpers/gateway-fixture";
import { serverFilesForBlock, startServerProcess } from "./helpers/gateway-process";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

// Bun checks idle sockets on a 4-second tick, so a 1-second idle timeout closes a connection within about
// 4 s: tests that wait for it to expire need more than bun test's 5 s default. This bounds a hang only.
const IDLE_TEST_CEILING_MS = 60_000;
const MB = 1024 * 1024;

let stack: GatewayStack;
let secret: string;
let restrictedSecret: string;

beforeAll(async () => {
  // Streamed frames a few ms apart, so that a stream's first chunk leaves the upstream on its own.
  stack = await startGatewayStack({ upstream: { chunkDelayMs: 5 } });
  await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["gpt-4o-mini", "text-embedding-3-small"] });
  secret = (await stack.seed.token({ userId: stack.userId })).secret;
  restrictedSecret = (await stack.seed.token({ userId: stack.userId, allowedModels: ["gpt-4o-mini"] })).secret;
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

interface ErrorEnvelope {
  error: { message: string; type: string; param: string | null; code: string | null };
}

function post(path: string, body: unknown, key = secret) {
  return stack.gateway.handle(
    new Request(`http://gateway.test${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "x-api-key": key },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

const chat = (fields: Record<string, unknown>, key = secret) =>
  post("/v1/chat/completions", { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], ...fields }, key);

/** A gateway app around the stack's services, listening on port 0, with its own settings and a log spy. */
function listenApp(settings: { idleTimeoutSeconds?: number; bodyReadTimeoutMs?: number; withConsole?: (services: GatewayServices, server: () => ReturnType<typeof createApp>["server"]) => (request: Request) => Promise<Response | null> } = {}) {
  const logs: { level: LogLevel; message: string }[] = [];
  const base = stack.gateway.services;
  const services: GatewayServices = {
    ...base,
    log: (level, message) => logs.push({ level, message }),
    options: { ...base.options, bodyReadTimeoutMs: settings.bodyReadTimeoutMs ?? base.options.bodyReadTimeoutMs },
  };
  let app: ReturnType<typeof createApp> | undefined;
  app = createApp({
    services,
    idleTimeoutSeconds: settings.idleTimeoutSeconds,
    fallback: settings.withConsole?.(services, () => app?.server ?? null),
  });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  const port = app.server!.port as number;
  return { app, port, url: `http://127.0.0.1:${port}`, logs, stop: () => app.stop(true) };
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The first complete HTTP/1.1 response in `raw` (latin1 text), or null while it is incomplete. */
function parseResponse(raw: string): RawResponse | null {
  const headerEnd = raw.indexOf("\r\n\r\n");
  if (headerEnd < 0) return null;
  const [statusLine, ...lines] = raw.slice(0, headerEnd).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(statusLine!.split(" ")[1]);
  let rest = raw.slice(headerEnd + 4);
  const utf8 = (text: string) => Buffer.from(text, "latin1").toString("utf8");
  if (headers["content-length"] !== undefined) {
    const length = Number(headers["content-length"]);
    return rest.length < length ? null : { status, headers, body: utf8(rest.slice(0, length)) };
  }
  if (!(headers["transfer-encoding"] ?? "").includes("chunked")) return null;
  let body = "";
  for (;;) {
    const lineEnd = rest.indexOf("\r\n");
    if (lineEnd < 0) return null;
    const size = Number.parseInt(rest.slice(0, lineEnd), 16);
    if (size === 0) return rest.startsWith("\r\n", lineEnd + 2) || rest.length >= lineEnd + 4 ? { status, headers, body: utf8(body) } : null;
    if (rest.length < lineEnd + 2 + size + 2) return null;
    body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

/** One client connection driven byte by byte (what fetch hides: trickles, keep-alive, who closed first). */
class RawConnection {
  received = "";
  closed = false;
  private readonly socket: net.Socket;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on("data", (data) => {
      this.received += data.toString("latin1");
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      this.closed = true;
    });
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1", () => resolve(new RawConnection(socket)));
      socket.once("error", reject);
    });
  }

  /** Writes and resolves once the kernel took it, or the connection closed. */
  write(data: string | Uint8Array): Promise<void> {
    if (this.closed || this.socket.destroyed) return Promise.resolve();
    // The callback runs once the data is handed to the kernel, or with an error when the socket closed.
    return new Promise((resolve) => this.socket.write(data, () => resolve()));
  }

  response(limitMs?: number): Promise<RawResponse> {
    return waitFor(() => parseResponse(this.received), "a complete response", limitMs);
  }

  /** Waits for the server to close the connection; the response (if any) is what arrived before. */
  async whenClosed(limitMs = 20_000): Promise<void> {
    await waitFor(() => this.closed, "the server to close the connection", limitMs);
  }

  destroy(): void {
    this.socket.destroy();
  }
}

function requestHead(method: string, path: string, headers: Record<string, string>): string {
  return `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("")}\r\n`;
}

/** Opens a connection, asks for /healthz and leaves it idle: it closes when the server's idle timeout expires. */
async function idleProbe(port: number): Promise<RawConnection> {
  const probe = await RawConnection.open(port);
  await probe.write(requestHead("GET", "/healthz", {}));
  await probe.response();
  return probe;
}

/**
 * A proxy in front of the fake upstream that can hold an answer: before its headers, or after the first
 * chunk of its body, until the test releases it. The bytes are the fake upstream's own.
 */
function startHoldingProxy(targetOrigin: string) {
  let release: () => void = () => {};
  let holding: { at: "headers" | "after-first-chunk"; released: Promise<void> } | null = null;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const headers = new Headers(request.headers);
      headers.delete("host");
      const answer = await fetch(`${targetOrigin}${url.pathname}`, { method: request.method, headers, body: await request.arrayBuffer() });
      const hold = holding;
      holding = null;
      if (hold?.at === "headers") await hold.released;
      if (hold?.at !== "after-first-chunk" || !answer.body) return new Response(answer.body, { status: answer.status, headers: answer.headers });
      const reader = answer.body.getReader();
      let first = true;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (!first) await hold.released;
          first = false;
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
      });
      return new Response(body, { status: answer.status, headers: answer.headers });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    /** Holds the next answer at `at`; returns its release. */
    hold(at: "headers" | "after-first-chunk") {
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      holding = { at, released };
      return () => release();
    },
    close: () => server.stop(true),
  };
}

describe("identifiers at the edge", () => {
  test("a model name with a NUL byte gets 400 invalid_value, and its request-log row is still written", async () => {
    const response = await chat({ model: "gpt\u0000" });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as ErrorEnvelope;
    expect(error).toMatchObject({ type: "invalid_request_error", code: "invalid_value", param: "model" });
    expect(error.message).toContain("control character");
    expect(error.message).toContain("gpt\\u0000");
    const requestId = response.headers.get("x-request-id")!;
    await stack.gateway.services.usage.flush();
    const rows = await waitFor(async () => {
      const found = await stack.database.handle.db.select().from(requestLogs).where(eq(requestLogs.requestId, requestId));
      return found.length > 0 ? found : null;
    }, "the 400's request-log row");
    expect(rows[0]).toMatchObject({ status: 400, errorCode: "invalid_value", model: "" });
  });

  test("a model name over 256 characters gets 400 quoting only its first 64 characters, even at 8 MB", async () => {
    for (const length of [257, 3000, 8 * MB]) {
      const response = await chat({ model: "m".repeat(length) });
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(text.length).toBeLessThan(400);
      const { error } = JSON.parse(text) as ErrorEnvelope;
      expect(error).toMatchObject({ code: "invalid_value", param: "model" });
      expect(error.message).toContain(`'${"m".repeat(64)}…'`);
      expect(error.message).toContain("longer than 256 characters");
    }
    expect((await chat({ model: "m".repeat(256) })).status).toBe(404);
  });

  test("completions, embeddings and /v1/messages check the model too, /v1/messages in Anthropic's error shape", async () => {
    const completions = await post("/v1/completions", { model: "x\n", prompt: "hi" });
    expect(completions.status).toBe(400);
    expect(((await completions.json()) as ErrorEnvelope).error).toMatchObject({ code: "invalid_value", param: "model" });

    const embeddings = await post("/v1/embeddings", { model: "e".repeat(300), input: "hi" });
    expect(embeddings.status).toBe(400);
    expect(((await embeddings.json()) as ErrorEnvelope).error).toMatchObject({ code: "invalid_value", param: "model" });

    const messages = await post("/v1/messages", { model: `claude\u0007${"c".repeat(5000)}`, max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
    expect(messages.status).toBe(400);
    const anthropic = (await messages.json()) as { type: string; error: { type: string; message: string } };
    expect(anthropic.type).toBe("error");
    expect(anthropic.error.type).toBe("invalid_request_error");
    expect(anthropic.error.message.length).toBeLessThan(200);
  });

  test("GET /v1/models/{id} answers malformed percent-encoding and bad ids with 400, and logs no error", async () => {
    const listening = listenApp();
    try {
      const get = (path: string) => fetch(`${listening.url}${path}`, { headers: { authorization: `Bearer ${secret}` } });
      const malformed = await get("/v1/models/%E0%A4%A");
      expect(malformed.status).toBe(400);
      expect(((await malformed.json()) as ErrorEnvelope).error).toMatchObject({ code: "invalid_value", param: "model", type: "invalid_request_error" });
      for (const id of ["gpt%00", "a".repeat(300)]) {
        const refused = await get(`/v1/models/${id}`);
        expect(refused.status).toBe(400);
        expect(((await refused.json()) as ErrorEnvelope).error.param).toBe("model");
      }
      expect((await get("/v1/models/gpt-4o-mini")).status).toBe(200);
      expect((await get(`/v1/models/${"n".repeat(200)}`)).status).toBe(404);
      expect(listening.logs.filter((line) => line.level === "error")).toEqual([]);
    } finally {
      await listening.stop();
    }
  });

  test("user, metadata and message names are held to OpenAI's bounds; values within them pass", async () => {
    const sixteen: Record<string, string> = Object.fromEntries(Array.from({ length: 15 }, (_, index) => [`k${index}`, "v".repeat(512)]));
    sixteen["k".repeat(64)] = "v";
    stack.upstream.enqueue({ kind: "ok", content: "fine" });
    const accepted = await chat({ user: "u".repeat(256), metadata: sixteen, messages: [{ role: "user", name: "alice_1", content: "hi" }] });
    expect(accepted.status).toBe(200);

    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ user: "u".repeat(257) }, "user"],
      [{ user: 42 }, "user"],
      [{ user: "bob\r\nX-Injected: 1" }, "user"],
      [{ metadata: { ...sixteen, extra: "1" } }, "metadata"],
      [{ metadata: { ["k".repeat(65)]: "v" } }, "metadata"],
      [{ metadata: { "bad\u0000key": "v" } }, "metadata"],
      [{ metadata: { key: "v".repeat(513) } }, "metadata.key"],
      [{ metadata: { key: 1 } }, "metadata.key"],
      [{ metadata: ["not", "an", "object"] }, "metadata"],
      [{ messages: [{ role: "user", name: "eve\u0000", content: "hi" }] }, "messages[0].name"],
      [{ messages: [{ role: "user", content: "hi" }, { role: "user", name: "n".repeat(257), content: "hi" }] }, "messages[1].name"],
    ];
    for (const [fields, param] of refusals) {
      const response = await chat(fields);
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as ErrorEnvelope;
      expect(error).toMatchObject({ type: "invalid_request_error", code: "invalid_value", param });
      expect(error.message.length).toBeLessThan(200);
    }
  });

  test("Anthropic's metadata.user_id is bounded on /v1/messages", async () => {
    const response = await post("/v1/messages", {
      model: "gpt-4o-mini",
      max_tokens: 10,
      metadata: { user_id: "u".repeat(257) },
      messages: [{ role: "user", content: "hi" }],
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { type: string; error: { type: string; message: string } };
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toContain("metadata.user_id");
  });

  test("model-not-found and model-not-allowed errors quote at most 64 characters of the name", async () => {
    const longName = `${"z".repeat(200)}`;
    const notFound = await chat({ model: longName });
    expect(notFound.status).toBe(404);
    const missing = ((await notFound.json()) as ErrorEnvelope).error;
    expect(missing.code).toBe("model_not_found");
    expect(missing.message).toContain(`'${"z".repeat(64)}…'`);
    expect(missing.message).not.toContain("z".repeat(65));

    const notAllowed = await chat({ model: longName }, restrictedSecret);
    expect(notAllowed.status).toBe(403);
    const refused = ((await notAllowed.json()) as ErrorEnvelope).error;
    expect(refused.code).toBe("model_not_allowed");
    expect(refused.message).not.toContain("z".repeat(65));
  });

  test("an error message relayed from an upstream is cut at 1,024 characters", async () => {
    stack.upstream.enqueue({ kind: "error", status: 400, body: { error: { message: `bad: ${"q".repeat(20_000)}`, type: "invalid_request_error", param: null, code: null } } });
    const response = await chat({});
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as ErrorEnvelope;
    expect(error.message.length).toBeLessThanOrEqual(1025);
    expect(error.message.endsWith("…")).toBe(true);
  });
});

describe("idle and body-read timeouts on a listening gateway", () => {
  test(
    "an idle keep-alive connection is closed once HTTP_IDLE_TIMEOUT_S has passed",
    async () => {
      const listening = listenApp({ idleTimeoutSeconds: 1 });
      try {
        const connection = await idleProbe(listening.port);
        await connection.whenClosed();
        expect(connection.closed).toBe(true);
      } finally {
        await listening.stop();
      }
    },
    IDLE_TEST_CEILING_MS,
  );

  test(
    "headers trickled a byte at a time are cut by the server before the request reaches the app",
    async () => {
      const listening = listenApp({ idleTimeoutSeconds: 1 });
      const connection = await RawConnection.open(listening.port);
      const head = requestHead("GET", "/healthz", { "x-slow": "s".repeat(10_000) });
      let sent = 0;
      const trickle = setInterval(() => void connection.write(head[sent++]!), 100);
      try {
        // Bun's own header timeout (about 10 s, whatever the idle timeout): trickling bytes does not extend it.
        await connection.whenClosed(40_000);
        expect(connection.received).toBe("");
        expect(sent).toBeLessThan(head.length);
      } finally {
        clearInterval(trickle);
        connection.destroy();
        await listening.stop();
      }
    },
    IDLE_TEST_CEILING_MS,
  );

  test(
    "an upstream that answers after the idle timeout has passed still reaches the client, and the connection then idles out",
    async () => {
      const proxy = startHoldingProxy(new URL(stack.upstream.url).origin);
      await stack.seed.channel({ baseUrl: proxy.url, models: ["slow-model"] });
      const listening = listenApp({ idleTimeoutSeconds: 1 });
      try {
        const release = proxy.hold("headers");
        const body = JSON.stringify({ model: "slow-model", messages: [{ role: "user", content: "hi" }] });
        const connection = await RawConnection.open(listening.port);
        await connection.write(
          requestHead("POST", "/v1/chat/completions", { authorization: `Bearer ${secret}`, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) }) + body,
        );
        // A connection opened after the call idles out first or with it: the call's own timer has expired then.
        const probe = await idleProbe(listening.port);
        await probe.whenClosed();
        release();
        const answer = await connection.response();
        expect(answer.status).toBe(200);
        expect(JSON.parse(answer.body).choices[0].message.content).toBeString();
        await connection.whenClosed();
      } finally {
        await listening.stop();
        await proxy.close();
      }
    },
    IDLE_TEST_CEILING_MS,
  );

  test(
    "a stream that lasts past the idle timeout arrives whole, and the connection idles out after it",
    async () => {
      const proxy = startHoldingProxy(new URL(stack.upstream.url).origin);
      await stack.seed.channel({ baseUrl: proxy.url, models: ["slow-stream-model"] });
      const listening = listenApp({ idleTimeoutSeconds: 1 });
      try {
        stack.upstream.enqueue({ kind: "ok", content: "one two three four" });
        const release = proxy.hold("after-first-chunk");
        const body = JSON.stringify({ model: "slow-stream-model", stream: true, messages: [{ role: "user", content: "hi" }] });
        const connection = await RawConnection.open(listening.port);
        await connection.write(
          requestHead("POST", "/v1/chat/completions", { authorization: `Bearer ${secret}`, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) }) + body,
        );
        await waitFor(() => connection.received.includes("data: "), "the stream's first chunk");
        const probe = await idleProbe(listening.port);
        await probe.whenClosed();
        expect(connection.closed).toBe(false);
        release();
        const answer = await connection.response();
        expect(answer.status).toBe(200);
        expect(answer.body).toContain("data: [DONE]");
        expect(answer.body).toContain("four");
        await connection.whenClosed();
      } finally {
        await listening.stop();
        await proxy.close();
      }
    },
    IDLE_TEST_CEILING_MS,
  );

  test("a body trickled a byte at a time gets 408 request_timeout in the envelope, then the connection is closed", async () => {
    const listening = listenApp({ bodyReadTimeoutMs: 300 });
    const connection = await RawConnection.open(listening.port);
    const trickle = setInterval(() => void connection.write("x"), 20);
    try {
      await connection.write(requestHead("POST", "/v1/chat/completions", { authorization: `Bearer ${secret}`, "content-type": "application/json", "content-length": "100000" }));
      const answer = await connection.response();
      expect(answer.status).toBe(408);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { type: "invalid_request_error", code: "request_timeout" } });
      await connection.whenClosed();
    } finally {
      clearInterval(trickle);
      connection.destroy();
      await listening.stop();
    }
  });

  test("a chunked body that stops arriving gets 408 as well, in Anthropic's shape on /v1/messages", async () => {
    const listening = listenApp({ bodyReadTimeoutMs: 300 });
    const connection = await RawConnection.open(listening.port);
    try {
      await connection.write(requestHead("POST", "/v1/messages", { "x-api-key": secret, "content-type": "application/json", "transfer-encoding": "chunked" }));
      await connection.write('5\r\n{"mod\r\n');
      const answer = await connection.response();
      expect(answer.status).toBe(408);
      expect(JSON.parse(answer.body)).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
      await connection.whenClosed();
    } finally {
      connection.destroy();
      await listening.stop();
    }
  });
});

describe("bodies over MAX_BODY_BYTES on a real socket", () => {
  const body40 = new Uint8Array(40 * MB).fill(0x20);

  test("a 40 MB body with Content-Length gets the 413 envelope, not a reset, and the connection stays usable", async () => {
    const listening = listenApp();
    const connection = await RawConnection.open(listening.port);
    try {
      await connection.write(requestHead("POST", "/v1/chat/completions", { authorization: `Bearer ${secret}`, "content-type": "application/json", "content-length": String(body40.byteLength) }));
      const sent = connection.write(body40);
      const answer = await connection.response();
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "request_too_large", type: "invalid_request_error" } });
      await sent;
      connection.received = "";
      await connection.write(requestHead("GET", "/healthz", {}));
      expect((await connection.response()).status).toBe(200);
    } finally {
      connection.destroy();
      await listening.stop();
    }
  });

  test("a 40 MB chunked body gets the 413 envelope once it passes the limit", async () => {
    const listening = listenApp();
    const connection = await RawConnection.open(listening.port);
    try {
      await connection.write(requestHead("POST", "/v1/chat/completions", { authorization: `Bearer ${secret}`, "content-type": "application/json", "transfer-encoding": "chunked" }));
      const piece = body40.subarray(0, MB);
      const sending = (async () => {
        for (let index = 0; index < 40 && !connection.closed && !connection.received; index++) {
          await connection.write(`${piece.byteLength.toString(16)}\r\n`);
          await connection.write(piece);
          await connection.write("\r\n");
        }
      })();
      const answer = await connection.response();
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "request_too_large" } });
      await sending;
    } finally {
      connection.destroy();
      await listening.stop();
    }
  });

  test("fetch and the official openai client get the 413 envelope for 40 MB, with and without Content-Length", async () => {
    const listening = listenApp();
    try {
      const headers = { authorization: `Bearer ${secret}`, "content-type": "application/json" };
      const declared = await fetch(`${listening.url}/v1/chat/completions`, { method: "POST", headers, body: body40 });
      expect(declared.status).toBe(413);
      expect(((await declared.json()) as ErrorEnvelope).error.code).toBe("request_too_large");

      const chunked = await fetch(`${listening.url}/v1/embeddings`, {
        method: "POST",
        headers,
        body: new ReadableStream({
          start(controller) {
            for (let index = 0; index < 40; index++) controller.enqueue(body40.subarray(index * MB, (index + 1) * MB));
            controller.close();
          },
        }),
      });
      expect(chunked.status).toBe(413);
      expect(((await chunked.json()) as ErrorEnvelope).error.code).toBe("request_too_large");

      const client = new OpenAI({ apiKey: secret, baseURL: `${listening.url}/v1`, maxRetries: 0 });
      const failure = await client.chat.completions
        .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x".repeat(40 * MB) }] })
        .then(() => null, (error: unknown) => error);
      expect(failure).toBeInstanceOf(OpenAI.APIError);
      expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(413);
      expect((failure as InstanceType<typeof OpenAI.APIError>).code).toBe("request_too_large");
    } finally {
      await listening.stop();
    }
  });
});

/** tRPC's own error body (superjson): `{"error":{"json":{"message","code","data":{"code","httpStatus"}}}}`. */
interface TrpcErrorBody {
  error: { json: { message: string; data: { code: string; httpStatus: number } } };
}

describe("the console served on the gateway's port", () => {
  function listenWithConsole(bodyReadTimeoutMs: number) {
    const addresses: Array<string | null> = [];
    const listening = listenApp({
      bodyReadTimeoutMs,
      withConsole: (services, server) => {
        const addressOf = clientAddressResolver(services, server as never);
        const consoleApp = createConsole({
          database: stack.database.handle,
          secretBox: stack.gateway.secretBox,
          setupCodes: null,
          testChannel: createChannelProber(),
          clientAddress: addressOf,
          bodyReadTimeoutMs,
        });
        return (request) => {
          addresses.push(addressOf(request));
          return consoleApp.handle(request);
        };
      },
    });
    return { ...listening, addresses };
  }

  test("gets the client's address, and refuses a body over 1 MiB in tRPC's shape before reading it", async () => {
    const listening = listenWithConsole(30_000);
    try {
      const answered = await fetch(`${listening.url}/trpc/auth.login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ json: { name: "nobody", password: "wrong-password" } }),
      });
      expect(answered.status).toBe(401);
      expect(listening.addresses).toEqual(["127.0.0.1"]);

      // Only the head, declaring 16 MiB: the 413 comes without waiting for a byte of the body.
      const connection = await RawConnection.open(listening.port);
      await connection.write(requestHead("POST", "/trpc/auth.login", { "content-type": "application/json", "content-length": String(16 * MB) }));
      const declared = await connection.response();
      expect(declared.status).toBe(413);
      expect((JSON.parse(declared.body) as TrpcErrorBody).error.json.data).toMatchObject({ code: "PAYLOAD_TOO_LARGE", httpStatus: 413 });
      connection.destroy();

      // Chunked (no length declared): counted as it arrives, refused once past 1 MiB.
      const chunk = new Uint8Array(64 * 1024).fill(0x20);
      const chunked = await fetch(`${listening.url}/trpc/auth.login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new ReadableStream({
          start(controller) {
            for (let index = 0; index < 32; index++) controller.enqueue(chunk);
            controller.close();
          },
        }),
      });
      expect(chunked.status).toBe(413);
      expect(((await chunked.json()) as TrpcErrorBody).error.json.data.code).toBe("PAYLOAD_TOO_LARGE");

      // Not /trpc: the JSON error envelope.
      const other = await fetch(`${listening.url}/export/logs.csv`, { method: "POST", body: new Uint8Array(2 * MB) });
      expect(other.status).toBe(413);
      expect(((await other.json()) as ErrorEnvelope).error.code).toBe("request_too_large");
    } finally {
      await listening.stop();
    }
  });

  test("a tRPC batch of more than 20 procedures is refused with 400; 20 are answered", async () => {
    const listening = listenWithConsole(30_000);
    try {
      const batch = (size: number) => fetch(`${listening.url}/trpc/${Array.from({ length: size }, () => "auth.setupStatus").join(",")}?batch=1&input={}`);
      const refused = await batch(21);
      expect(refused.status).toBe(400);
      const answered = await batch(20);
      expect(answered.status).toBe(200);
      expect((await answered.json()) as unknown[]).toHaveLength(20);
    } finally {
      await listening.stop();
    }
  });

  test("a body that does not arrive within the body deadline gets 408", async () => {
    const listening = listenWithConsole(300);
    try {
      const connection = await RawConnection.open(listening.port);
      await connection.write(requestHead("POST", "/trpc/auth.login", { "content-type": "application/json", "content-length": "1000" }));
      const slow = await connection.response();
      expect(slow.status).toBe(408);
      expect((JSON.parse(slow.body) as TrpcErrorBody).error.json.data.code).toBe("TIMEOUT");
      connection.destroy();
    } finally {
      await listening.stop();
    }
  });
});

describe("the gateway process (index.ts)", () => {
  const files = serverFilesForBlock("tollgate-hardening-");

  test(
    "closes idle connections after HTTP_IDLE_TIMEOUT_S and answers a 40 MB body with the envelope",
    async () => {
      const server = await startServerProcess(files.environment({ HTTP_IDLE_TIMEOUT_S: "1" }));
      try {
        const url = server.origin;
        const port = new URL(url).port;
        const api = await fetch(`${url}/v1/chat/completions`, { method: "POST", body: new Uint8Array(40 * MB) });
        // No key on /v1: 401 before the body is read.
        expect(((await api.json()) as ErrorEnvelope).error.code).toBe("missing_api_key");
        // The console refuses the size itself (1 MiB), in tRPC's shape.
        const console = await fetch(`${url}/trpc/auth.login`, { method: "POST", body: new Uint8Array(40 * MB) });
        expect(console.status).toBe(413);
        expect(((await console.json()) as TrpcErrorBody).error.json.data.code).toBe("PAYLOAD_TOO_LARGE");
        const probe = await idleProbe(Number(port));
        await probe.whenClosed();
        expect(probe.closed).toBe(true);
      } finally {
        server.child.kill("SIGTERM");
        await server.child.exited;
      }
    },
    IDLE_TEST_CEILING_MS,
  );
});
