import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import { createApp } from "@tollgate/gateway/app";
import OpenAI from "openai";
import { startFakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import { type GatewayStack, startGatewayStack, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

// Bun checks idle sockets on a 4-second tick, so a 1-second idle timeout closes a connection within about
// 4 s: these tests need more than bun test's 5 s default. This bounds a hang only.
const IDLE_TEST_CEILING_MS = 60_000;
const MB = 1024 * 1024;

let stack: GatewayStack;
let secret: string;
let listening: { port: number; url: string; stop: () => Promise<void> };

beforeAll(async () => {
  stack = await startGatewayStack({ upstream: { chunkDelayMs: 5 } });
  await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["gpt-4o-mini"] });
  secret = (await stack.seed.token({ userId: stack.userId })).secret;
  const app = createApp({ services: stack.gateway.services, idleTimeoutSeconds: 1 });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  const port = app.server!.port as number;
  listening = {
    port,
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      await app.stop(true);
    },
  };
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await listening?.stop();
  await stack?.stop();
}, SETUP_TIMEOUT_MS);

/** One keep-alive client connection driven byte by byte: what it received, and whether the server closed it. */
function openConnection(port: number) {
  return new Promise<{ socket: net.Socket; state: { received: string; closed: boolean } }>((resolve, reject) => {
    const state = { received: "", closed: false };
    const socket = net.connect(port, "127.0.0.1", () => resolve({ socket, state }));
    socket.on("data", (data) => {
      state.received += data.toString("latin1");
    });
    socket.on("close", () => {
      state.closed = true;
    });
    socket.once("error", reject);
    socket.on("error", () => {});
  });
}

function head(method: string, path: string, headers: Record<string, string>): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines.join("")}\r\n`;
}

/** The status of a complete answer in `received` (Content-Length or chunked framing), or null while incomplete. */
function completeStatus(received: string): number | null {
  const end = received.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const headers = received.slice(0, end).toLowerCase();
  const body = received.slice(end + 4);
  const length = /content-length: (\d+)/.exec(headers);
  if (length) return body.length >= Number(length[1]) ? Number(received.split(" ")[1]) : null;
  return body.endsWith("0\r\n\r\n") ? Number(received.split(" ")[1]) : null;
}

const json = (body: unknown) => {
  const text = JSON.stringify(body);
  return { text, length: String(Buffer.byteLength(text)) };
};

describe("keep-alive connections past HTTP_IDLE_TIMEOUT_S", () => {
  test(
    "are closed whatever their last request was: health, 401, 404, a call, a stream, count_tokens, a 413",
    async () => {
      const chat = json({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
      const stream = json({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "hi" }] });
      const count = json({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
      const auth = { authorization: `Bearer ${secret}`, "content-type": "application/json" };
      const lastRequests: Array<[string, string, number]> = [
        ["health", head("GET", "/healthz", {}), 200],
        ["unknown key", head("GET", "/v1/models", { authorization: "Bearer sk-unknown" }), 401],
        ["unknown path", head("GET", "/v1/nothing", {}), 404],
        ["call", head("POST", "/v1/chat/completions", { ...auth, "content-length": chat.length }) + chat.text, 200],
        ["stream", head("POST", "/v1/chat/completions", { ...auth, "content-length": stream.length }) + stream.text, 200],
        ["count_tokens", head("POST", "/v1/messages/count_tokens", { ...auth, "content-length": count.length }) + count.text, 200],
        // Declared over the limit and never sent: the 413 comes at once, and the connection still idles out.
        ["too large", head("POST", "/v1/chat/completions", { ...auth, "content-length": String(100 * MB) }), 413],
      ];
      stack.upstream.enqueue({ kind: "ok", content: "one" });
      stack.upstream.enqueue({ kind: "ok", content: "two three" });
      const connections = await Promise.all(
        lastRequests.map(async ([name, request, status]) => {
          const connection = await openConnection(listening.port);
          connection.socket.write(request);
          expect({ name, status: await waitFor(() => completeStatus(connection.state.received), `${name}'s answer`) }).toEqual({ name, status });
          return { name, ...connection };
        }),
      );
      await waitFor(() => connections.every((connection) => connection.state.closed), "every idle connection to be closed", 20_000);
    },
    IDLE_TEST_CEILING_MS,
  );

  test(
    "a client that keeps sending a body after its 413 has the envelope, and is then disconnected by the idle bound",
    async () => {
      const { socket, state } = await openConnection(listening.port);
      socket.write(head("POST", "/v1/chat/completions", { authorization: `Bearer ${secret}`, "content-type": "application/json", "content-length": String(1024 * MB) }));
      const piece = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const sending = setInterval(() => {
        if (state.closed) return;
        socket.write(piece);
        sent += piece.byteLength;
      }, 20);
      try {
        expect(await waitFor(() => completeStatus(state.received), "the 413")).toBe(413);
        expect(state.received).toContain('"code":"request_too_large"');
        // Still sending (about 3 MB/s), the client is cut: what the server drains after an early 413 is bounded.
        await waitFor(() => state.closed, "the server to close the connection", 20_000);
        expect(sent).toBeLessThan(100 * MB);
      } finally {
        clearInterval(sending);
        socket.destroy();
      }
    },
    IDLE_TEST_CEILING_MS,
  );

  test(
    "a client that stops reading a stream is let go after STREAM_IDLE_TIMEOUT_MS: the call ends, the connection is closed",
    async () => {
      // An upstream as fast as it can be: the socket buffers fill at once, and the server has to wait for the client.
      const fast = await startFakeOpenAIUpstream({ chunkDelayMs: 0 });
      await stack.seed.channel({ baseUrl: fast.url, models: ["bulk-model"] });
      const services = stack.gateway.services;
      const app = createApp({ services: { ...services, options: { ...services.options, streamIdleTimeoutMs: 1000 } }, idleTimeoutSeconds: 1 });
      app.listen({ port: 0, hostname: "127.0.0.1" });
      const { socket, state } = await openConnection(app.server!.port as number);
      try {
        fast.enqueue({ kind: "ok", content: "word ".repeat(1_000_000) });
        const body = JSON.stringify({ model: "bulk-model", stream: true, messages: [{ role: "user", content: "hi" }] });
        socket.write(head("POST", "/v1/chat/completions", { authorization: `Bearer ${secret}`, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) }) + body);
        await waitFor(() => state.received.includes("data: "), "the stream's first events");
        socket.pause();
        await waitFor(() => services.calls.size === 0, "the call to be let go and accounted", 20_000);
        // What the server wrote before letting go is still delivered, then the connection ends.
        socket.resume();
        await waitFor(() => state.closed, "the server to close the connection", 20_000);
        expect(state.received).not.toContain("data: [DONE]");
      } finally {
        socket.destroy();
        await app.stop(true);
        await fast.close();
      }
    },
    IDLE_TEST_CEILING_MS,
  );

  test("a 100 MB body gets the 413 envelope from a raw fetch and an APIError from the official openai client", async () => {
    const body = new Uint8Array(100 * MB).fill(0x20);
    const answer = await fetch(`${listening.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body,
    });
    expect(answer.status).toBe(413);
    expect(await answer.json()).toMatchObject({ error: { code: "request_too_large", type: "invalid_request_error" } });

    const client = new OpenAI({ apiKey: secret, baseURL: `${listening.url}/v1`, maxRetries: 0 });
    const failure = await client.chat.completions
      .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x".repeat(100 * MB) }] })
      .then(() => null, (error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(413);
    expect((failure as InstanceType<typeof OpenAI.APIError>).code).toBe("request_too_large");
  });
});
