import { createGzip } from "node:zlib";

/**
 * An upstream that attacks the gateway instead of serving it, over real HTTP on port 0: it redirects (to a
 * second local server that records what reached it, headers included), answers a 200 JSON body that never
 * ends, a stream whose one event never ends, a small gzip body that inflates past any cap, or a body that
 * drips a byte at a time. It answers every path the same way, so that any channel type can point at it.
 * Endless bodies stop on their own after `safetyBytes` (so that a gateway that reads them whole fails its
 * test instead of taking the machine) and record how much they had sent when the gateway hung up.
 */
export type HostileMode =
  /** 3xx to the recorder (same path, a secret in the Location's query). */
  | { kind: "redirect"; status: 301 | 302 | 303 | 307 | 308 }
  /** application/json (200 unless `status` says otherwise) whose body opens a string and never closes it. */
  | { kind: "endless-json"; status?: number }
  /** 200 text/event-stream: one whole content event ("hello"), then an event that never ends (no blank line ever). */
  | { kind: "endless-event"; format: "openai" | "anthropic" }
  /** 200 application/json with content-encoding gzip: a few hundred KB that inflate to `inflatedBytes`. */
  | { kind: "gzip-bomb"; inflatedBytes: number }
  /** 200 application/json whose body comes one byte every `intervalMs`, never ending. */
  | { kind: "slow-drip"; intervalMs: number };

export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  body: string;
}

/** One answer's body as the hostile server sent it. */
export interface SentBody {
  mode: HostileMode["kind"];
  /** Bytes handed to the connection (compressed bytes for the gzip bomb). */
  bytes: number;
  /** The gateway hung up before the body's end. */
  cancelled: boolean;
}

export interface HostileUpstream {
  /** Base URL with /v1 (openai-compatible channels). */
  url: string;
  /** Base URL without /v1 (Anthropic and Gemini channels). */
  origin: string;
  /** The server redirects go to: every request that reached it (none should). */
  recorder: { origin: string; requests: RecordedRequest[] };
  requests: RecordedRequest[];
  /** The bodies sent, in order. */
  sent: SentBody[];
  setMode(mode: HostileMode): void;
  /** Resolves with the next body the gateway hung up on (one claimed per call, whether it happened before or after). */
  waitForCancel(): Promise<SentBody>;
  close(): Promise<void>;
}

/** The text the recorder answers with: a client that sees it was served by the host a redirect named. */
export const RECORDER_TEXT = "text from the other server";
/** What the redirect's Location carries that must never reach a client. */
export const LOCATION_SECRET = "location-secret-4c1d";

const encoder = new TextEncoder();
const CHUNK_BYTES = 64 * 1024;
const DEFAULT_SAFETY_BYTES = 256 * 1024 * 1024;

async function record(request: Request): Promise<RecordedRequest> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name.toLowerCase()] = value;
  });
  return { method: request.method, path: new URL(request.url).pathname, headers, body: await request.text() };
}

function recorderAnswer(path: string): Response {
  if (path.endsWith("/messages")) {
    return Response.json({
      id: "msg_other",
      type: "message",
      role: "assistant",
      model: "claude",
      content: [{ type: "text", text: RECORDER_TEXT }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 3, output_tokens: 5 },
    });
  }
  return Response.json({
    id: "chatcmpl-other",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: "other",
    choices: [{ index: 0, message: { role: "assistant", content: RECORDER_TEXT }, finish_reason: "stop" }],
    usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 },
  });
}

/** A gzip member of `inflatedBytes` of 'a' after a JSON prefix, compressed a chunk at a time (never held inflated). */
async function gzipBomb(inflatedBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const gzip = createGzip({ level: 9 });
  const pieces: Buffer[] = [];
  gzip.on("data", (piece: Buffer) => pieces.push(piece));
  const done = new Promise<void>((resolve, reject) => {
    gzip.on("end", resolve);
    gzip.on("error", reject);
  });
  const filler = Buffer.alloc(1024 * 1024, "a");
  gzip.write('{"choices":[{"message":{"content":"');
  for (let written = 0; written < inflatedBytes; written += filler.byteLength) {
    if (!gzip.write(filler)) await new Promise((resolve) => gzip.once("drain", resolve));
  }
  gzip.end('"}}]}');
  await done;
  const bomb = new Uint8Array(pieces.reduce((total, piece) => total + piece.byteLength, 0));
  let offset = 0;
  for (const piece of pieces) {
    bomb.set(piece, offset);
    offset += piece.byteLength;
  }
  return bomb;
}

function openAIPrelude(): string {
  const chunk = (delta: Record<string, unknown>) =>
    `data: ${JSON.stringify({ id: "chatcmpl-hostile", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
  return `${chunk({ role: "assistant", content: "" })}${chunk({ content: "hello" })}data: {"id":"chatcmpl-hostile","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"`;
}

function anthropicPrelude(): string {
  const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  return (
    event("message_start", {
      type: "message_start",
      message: { id: "msg_hostile", type: "message", role: "assistant", model: "claude", content: [], stop_reason: null, usage: { input_tokens: 3, output_tokens: 1 } },
    }) +
    event("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }) +
    event("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hello" } }) +
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"'
  );
}

export async function startFakeHostileUpstream(options: { safetyBytes?: number } = {}): Promise<HostileUpstream> {
  const safetyBytes = options.safetyBytes ?? DEFAULT_SAFETY_BYTES;
  const recorded: RecordedRequest[] = [];
  const recorder = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const seen = await record(request);
      recorded.push(seen);
      return recorderAnswer(seen.path);
    },
  });
  const recorderOrigin = `http://127.0.0.1:${recorder.port}`;
  const requests: RecordedRequest[] = [];
  const sent: SentBody[] = [];
  let mode: HostileMode = { kind: "endless-json" };
  const bombs = new Map<number, Promise<Uint8Array<ArrayBuffer>>>();
  let cancelsClaimed = 0;
  const cancelWaiters: Array<{ index: number; resolve: (body: SentBody) => void }> = [];
  const settleWaiters = () => {
    const cancelled = sent.filter((body) => body.cancelled);
    for (const waiter of [...cancelWaiters]) {
      const body = cancelled[waiter.index];
      if (!body) continue;
      cancelWaiters.splice(cancelWaiters.indexOf(waiter), 1);
      waiter.resolve(body);
    }
  };

  /** A body of `prelude` then `filler` for ever (up to safetyBytes), pulled as the gateway reads. */
  const endless = (kind: HostileMode["kind"], prelude: string, fillerByte: string): ReadableStream<Uint8Array> => {
    const log: SentBody = { mode: kind, bytes: 0, cancelled: false };
    sent.push(log);
    const filler = encoder.encode(fillerByte.repeat(CHUNK_BYTES));
    let first = true;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        const chunk = first ? encoder.encode(prelude) : filler;
        first = false;
        log.bytes += chunk.byteLength;
        controller.enqueue(chunk);
        if (log.bytes >= safetyBytes) controller.close();
      },
      cancel() {
        log.cancelled = true;
        settleWaiters();
      },
    });
  };

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const seen = await record(request);
      requests.push(seen);
      const current = mode;
      switch (current.kind) {
        case "redirect":
          return new Response(null, { status: current.status, headers: { location: `${recorderOrigin}${seen.path}?sig=${LOCATION_SECRET}` } });
        case "endless-json":
          return new Response(endless(current.kind, '{"id":"chatcmpl-hostile","object":"chat.completion","choices":[{"message":{"content":"', "a"), {
            status: current.status ?? 200,
            headers: { "content-type": "application/json" },
          });
        case "endless-event":
          return new Response(endless(current.kind, current.format === "openai" ? openAIPrelude() : anthropicPrelude(), "a"), {
            headers: { "content-type": "text/event-stream" },
          });
        case "gzip-bomb": {
          let bomb = bombs.get(current.inflatedBytes);
          if (!bomb) bombs.set(current.inflatedBytes, (bomb = gzipBomb(current.inflatedBytes)));
          const bytes = await bomb;
          const log: SentBody = { mode: current.kind, bytes: bytes.byteLength, cancelled: false };
          sent.push(log);
          return new Response(bytes, { headers: { "content-type": "application/json", "content-encoding": "gzip" } });
        }
        case "slow-drip": {
          const log: SentBody = { mode: current.kind, bytes: 0, cancelled: false };
          sent.push(log);
          const { intervalMs } = current;
          const body = new ReadableStream<Uint8Array>({
            async pull(controller) {
              await Bun.sleep(log.bytes === 0 ? 0 : intervalMs);
              if (log.cancelled) return;
              log.bytes += 1;
              controller.enqueue(encoder.encode(log.bytes === 1 ? "{" : " "));
            },
            cancel() {
              log.cancelled = true;
              settleWaiters();
            },
          });
          return new Response(body, { headers: { "content-type": "application/json" } });
        }
      }
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    url: `${origin}/v1`,
    origin,
    recorder: { origin: recorderOrigin, requests: recorded },
    requests,
    sent,
    setMode(next) {
      mode = next;
    },
    waitForCancel() {
      const index = cancelsClaimed++;
      return new Promise((resolve) => {
        cancelWaiters.push({ index, resolve });
        settleWaiters();
      });
    },
    async close() {
      await server.stop(true);
      await recorder.stop(true);
    },
  };
}
