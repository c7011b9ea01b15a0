// A lean OpenAI-compatible upstream for benchmarks, run as its own process. POST /v1/chat/completions:
// non-streamed answers after BENCH_UPSTREAM_DELAY_MS (0: at once); streamed ones send their headers at once, the first
// chunk after BENCH_UPSTREAM_DELAY_MS, then BENCH_STREAM_CHUNKS - 1 more every BENCH_CHUNK_INTERVAL_MS, the
// usage chunk when asked (stream_options.include_usage) and [DONE]. Prints {"url":...} once listening.
const delayMs = Number(process.env.BENCH_UPSTREAM_DELAY_MS ?? 20);
const chunks = Math.max(1, Number(process.env.BENCH_STREAM_CHUNKS ?? 20));
const chunkIntervalMs = Number(process.env.BENCH_CHUNK_INTERVAL_MS ?? 10);
const encoder = new TextEncoder();
let sequence = 0;

interface ChatBody {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
}

function completion(id: string, model: string, created: number): string {
  return JSON.stringify({
    id,
    object: "chat.completion",
    created,
    model,
    system_fingerprint: "fp_bench",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: "The quick brown fox jumps over the lazy dog. ".repeat(4), refusal: null },
        logprobs: null,
        finish_reason: "stop",
      },
    ],
    usage: {
      prompt_tokens: 24,
      completion_tokens: 40,
      total_tokens: 64,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
  });
}

function chunkFrame(id: string, model: string, created: number, delta: object, finishReason: string | null): Uint8Array {
  const chunk = { id, object: "chat.completion.chunk", created, model, system_fingerprint: "fp_bench", choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] };
  return encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`);
}

function stream(body: ChatBody, model: string): Response {
  const id = `chatcmpl-bench${++sequence}`;
  const created = Math.floor(Date.now() / 1000);
  const includeUsage = body.stream_options?.include_usage === true;
  return new Response(
    new ReadableStream({
      type: "direct",
      async pull(controller: ReadableStreamDirectController) {
        if (delayMs > 0) await Bun.sleep(delayMs);
        controller.write(chunkFrame(id, model, created, { role: "assistant", content: "" }, null));
        controller.flush();
        for (let index = 1; index < chunks; index++) {
          if (chunkIntervalMs > 0) await Bun.sleep(chunkIntervalMs);
          controller.write(chunkFrame(id, model, created, { content: `word${index} ` }, null));
          controller.flush();
        }
        const closing = [chunkFrame(id, model, created, {}, "stop")];
        if (includeUsage) {
          const usage = { id, object: "chat.completion.chunk", created, model, choices: [], usage: { prompt_tokens: 24, completion_tokens: chunks, total_tokens: 24 + chunks } };
          closing.push(encoder.encode(`data: ${JSON.stringify(usage)}\n\n`));
        }
        closing.push(encoder.encode("data: [DONE]\n\n"));
        for (const frame of closing) controller.write(frame);
        controller.close();
      },
    } as unknown as UnderlyingDefaultSource<Uint8Array>),
    { headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" } },
  );
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(process.env.PORT ?? 0),
  idleTimeout: 0,
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (request.method !== "POST" || path !== "/v1/chat/completions") {
      return Response.json({ error: { message: "unknown path", type: "invalid_request_error", param: null, code: "unknown_url" } }, { status: 404 });
    }
    const body = (await request.json()) as ChatBody;
    const model = body.model ?? "gpt-bench";
    if (body.stream) return stream(body, model);
    // No delay at all (not a zero-length timer) when the bench wants the upstream to answer at once.
    if (delayMs > 0) await Bun.sleep(delayMs);
    return new Response(completion(`chatcmpl-bench${++sequence}`, model, Math.floor(Date.now() / 1000)), {
      headers: { "content-type": "application/json" },
    });
  },
});

console.log(JSON.stringify({ url: `http://127.0.0.1:${server.port}/v1` }));
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});

// A module, not a script: its top-level names stay its own.
export {};
