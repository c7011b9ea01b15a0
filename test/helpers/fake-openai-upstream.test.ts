import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import {
  type FakeOpenAIUpstream,
  fakeDefaults,
  openAIErrorFixtures,
  startFakeOpenAIUpstream,
} from "./fake-openai-upstream";

let fake: FakeOpenAIUpstream;

beforeEach(async () => {
  fake = await startFakeOpenAIUpstream();
});

afterEach(async () => {
  await fake.close();
});

function clientFor(upstream: FakeOpenAIUpstream, apiKey = "sk-test-key"): OpenAI {
  return new OpenAI({ apiKey, baseURL: upstream.url, maxRetries: 0 });
}

function postJson(path: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(`${fake.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
  });
}

/** Splits an SSE body into the payloads of its `data:` lines, checking OpenAI's one-line framing. */
function sseDataPayloads(text: string): string[] {
  expect(text.endsWith("\n\n")).toBe(true);
  return text
    .slice(0, -2)
    .split("\n\n")
    .map((event) => {
      expect(event.startsWith("data: ")).toBe(true);
      expect(event.includes("\n")).toBe(false);
      return event.slice("data: ".length);
    });
}

const messages = [{ role: "user" as const, content: "Say hello" }];

describe("fake OpenAI upstream: chat completions", () => {
  test("a non-streamed completion has OpenAI's shape and echoes the requested model", async () => {
    const completion = await clientFor(fake).chat.completions.create({ model: "gpt-echo-me", messages });

    expect(completion.object).toBe("chat.completion");
    expect(completion.id).toMatch(/^chatcmpl-[A-Za-z0-9]+$/);
    expect(completion.model).toBe("gpt-echo-me");
    expect(Math.abs(completion.created - Date.now() / 1000)).toBeLessThan(60);
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: { role: "assistant", content: fakeDefaults.content, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: "stop",
      },
    ]);
    expect(completion.usage).toEqual({
      prompt_tokens: 12,
      completion_tokens: 10,
      total_tokens: 22,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    });
    expect(completion.system_fingerprint).toStartWith("fp_");
    expect(completion.service_tier).toBe("default");
  });

  test("the request is recorded with path, method, lower-cased headers and parsed body", async () => {
    await clientFor(fake).chat.completions.create({ model: "gpt-x", messages, temperature: 0.5 });

    expect(fake.requests).toHaveLength(1);
    const [recorded] = fake.requests;
    expect(recorded!.path).toBe("/v1/chat/completions");
    expect(recorded!.method).toBe("POST");
    expect(recorded!.headers.authorization).toBe("Bearer sk-test-key");
    expect(recorded!.body).toEqual({ model: "gpt-x", messages, temperature: 0.5 });
  });

  test("content, token counts and cached tokens come from the ok behaviour", async () => {
    fake.enqueue({ kind: "ok", content: "Custom answer", promptTokens: 100, completionTokens: 7, cachedTokens: 64 });
    const completion = await clientFor(fake).chat.completions.create({ model: "m", messages });

    expect(completion.choices[0]!.message.content).toBe("Custom answer");
    expect(completion.usage).toMatchObject({
      prompt_tokens: 100,
      completion_tokens: 7,
      total_tokens: 107,
      prompt_tokens_details: { cached_tokens: 64 },
    });
  });

  test("omitUsage leaves the usage field out of a non-streamed completion", async () => {
    fake.enqueue({ kind: "ok", omitUsage: true });
    const response = await postJson("/chat/completions", { model: "m", messages });
    const body = await response.json();

    expect(response.status).toBe(200);
    expect("usage" in body).toBe(false);
  });

  test("streamed deltas concatenate to the content, with usage only in a final chunk when include_usage is set", async () => {
    const stream = await clientFor(fake).chat.completions.create({
      model: "gpt-stream",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    const first = chunks[0]!;
    expect(first.object).toBe("chat.completion.chunk");
    expect(first.model).toBe("gpt-stream");
    expect(first.choices[0]!.delta).toEqual({ role: "assistant", content: "", refusal: null });
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);

    const withChoices = chunks.filter((chunk) => chunk.choices.length > 0);
    const text = withChoices.map((chunk) => chunk.choices[0]!.delta.content ?? "").join("");
    expect(text).toBe(fakeDefaults.content);
    expect(withChoices.length).toBeGreaterThan(3);

    const finish = withChoices.at(-1)!;
    expect(finish.choices[0]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: "stop" });
    for (const chunk of withChoices) expect(chunk.usage).toBeNull();

    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 10, total_tokens: 22 });
  });

  test("a stream without include_usage has no usage field at all and no usage chunk", async () => {
    const response = await postJson("/chat/completions", { model: "m", messages, stream: true });
    expect(response.headers.get("content-type")).toStartWith("text/event-stream");

    const payloads = sseDataPayloads(await response.text());
    expect(payloads.at(-1)).toBe("[DONE]");
    const chunks = payloads.slice(0, -1).map((payload) => JSON.parse(payload));
    for (const chunk of chunks) {
      expect("usage" in chunk).toBe(false);
      expect(chunk.choices).toHaveLength(1);
    }
  });

  test("omitUsage drops the usage chunk and the null usage fields even when include_usage is set", async () => {
    fake.enqueue({ kind: "ok", omitUsage: true });
    const response = await postJson("/chat/completions", {
      model: "m",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = sseDataPayloads(await response.text())
      .slice(0, -1)
      .map((payload) => JSON.parse(payload));

    for (const chunk of chunks) {
      expect("usage" in chunk).toBe(false);
      expect(chunk.choices).toHaveLength(1);
    }
  });

  test("chunks carry OpenAI's obfuscation field unless the client turns it off", async () => {
    const withObfuscation = await postJson("/chat/completions", { model: "m", messages, stream: true });
    const without = await postJson("/chat/completions", {
      model: "m",
      messages,
      stream: true,
      stream_options: { include_obfuscation: false },
    });
    const parse = async (response: Response) =>
      sseDataPayloads(await response.text())
        .slice(0, -1)
        .map((payload) => JSON.parse(payload));

    for (const chunk of await parse(withObfuscation)) expect(typeof chunk.obfuscation).toBe("string");
    for (const chunk of await parse(without)) expect("obfuscation" in chunk).toBe(false);
  });

  test("chunks reach the client one by one, before the stream has ended", async () => {
    fake.enqueue({ kind: "stall-stream", chunksBeforeStall: 2 });
    const controller = new AbortController();
    const response = await postJson("/chat/completions", { model: "m", messages, stream: true }, { signal: controller.signal });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let received = "";
    while (received.split("\n\n").length - 1 < 3) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      received += value;
    }
    const contents = sseDataPayloads(received).map((payload) => JSON.parse(payload).choices[0].delta.content);

    expect(contents).toEqual(["", "Hello", " from"]);
    controller.abort();
    await fake.waitForStreamCancel();
  });

  test("waitForStreamCancel resolves when the client abandons a stream", async () => {
    fake.enqueue({ kind: "stall-stream", chunksBeforeStall: 1 });
    const stream = await clientFor(fake).chat.completions.create({ model: "m", messages, stream: true });
    const seen: string[] = [];
    for await (const chunk of stream) {
      seen.push(chunk.choices[0]?.delta.content ?? "");
      if (seen.length === 2) break;
    }

    expect(seen).toEqual(["", "Hello"]);
    await fake.waitForStreamCancel();
    await fake.waitForClientAbort();
  });

  test("each waitForStreamCancel call claims one cancellation, including one that already happened", async () => {
    for (let index = 0; index < 2; index += 1) {
      fake.enqueue({ kind: "stall-stream", chunksBeforeStall: 0 });
      const controller = new AbortController();
      const response = await postJson("/chat/completions", { model: "m", messages, stream: true }, { signal: controller.signal });
      await response.body!.getReader().read();
      controller.abort();
    }

    await fake.waitForStreamCancel();
    await fake.waitForStreamCancel();
  });

  test("with chunkDelayMs the stream is paced but complete", async () => {
    const paced = await startFakeOpenAIUpstream({ chunkDelayMs: 5 });
    try {
      const stream = await clientFor(paced).chat.completions.create({ model: "m", messages, stream: true });
      let text = "";
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";

      expect(text).toBe(fakeDefaults.content);
    } finally {
      await paced.close();
    }
  });

  test("close() ends a server that still has a hung request", async () => {
    const closing = await startFakeOpenAIUpstream();
    closing.setDefault({ kind: "hang" });
    const pending = fetch(`${closing.url}/models`).catch((error: unknown) => error);
    await closing.waitForRequests(1);
    await closing.close();

    expect(await pending).toBeInstanceOf(Error);
  });

  test("a client abort during a hang is reported by waitForClientAbort", async () => {
    fake.enqueue({ kind: "hang" });
    const controller = new AbortController();
    const pending = postJson("/chat/completions", { model: "m", messages }, { signal: controller.signal });
    await fake.waitForRequests(1);
    controller.abort();

    await expect(pending).rejects.toThrow();
    await fake.waitForClientAbort();
  });

  test("a body that is not JSON gets OpenAI's 400", async () => {
    const response = await postJson("/chat/completions", "{not json");

    expect(response.status).toBe(400);
    expect(await response.json()).toEqual(openAIErrorFixtures.invalidJson);
  });
});

describe("fake OpenAI upstream: embeddings and models", () => {
  test("base64 embeddings decode to exactly the floats of the float format", async () => {
    const client = clientFor(fake);
    const input = ["first text", "second, longer text"];
    const asFloats = await client.embeddings.create({ model: "text-embedding-3-small", input, encoding_format: "float" });
    const decodedByClient = await client.embeddings.create({ model: "text-embedding-3-small", input });

    expect(fake.requests.map((request) => request.body.encoding_format)).toEqual(["float", "base64"]);
    expect(asFloats.object).toBe("list");
    expect(asFloats.model).toBe("text-embedding-3-small");
    expect(asFloats.data.map((item) => [item.object, item.index, item.embedding.length])).toEqual([
      ["embedding", 0, 8],
      ["embedding", 1, 8],
    ]);
    expect(asFloats.data[0]!.embedding).not.toEqual(asFloats.data[1]!.embedding);
    expect(decodedByClient.data.map((item) => item.embedding)).toEqual(asFloats.data.map((item) => item.embedding));
    expect(asFloats.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
  });

  test("a base64 embedding is the little-endian float32 bytes of the vector", async () => {
    const float = await (await postJson("/embeddings", { model: "e", input: "hello", encoding_format: "float" })).json();
    const base64 = await (await postJson("/embeddings", { model: "e", input: "hello", encoding_format: "base64" })).json();
    const bytes = Buffer.from(base64.data[0].embedding, "base64");
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const decoded = Array.from({ length: bytes.byteLength / 4 }, (_, index) => view.getFloat32(index * 4, true));

    expect(typeof base64.data[0].embedding).toBe("string");
    expect(decoded).toEqual(float.data[0].embedding);
  });

  test("embeddings are deterministic and honour the dimensions parameter", async () => {
    const client = clientFor(fake);
    const once = await client.embeddings.create({ model: "e", input: "same", encoding_format: "float" });
    const again = await client.embeddings.create({ model: "e", input: "same", encoding_format: "float" });
    const wide = await client.embeddings.create({ model: "e", input: "same", encoding_format: "float", dimensions: 40 });

    expect(again.data[0]!.embedding).toEqual(once.data[0]!.embedding);
    expect(wide.data[0]!.embedding).toHaveLength(40);
  });

  test("the models list has OpenAI's list shape", async () => {
    const client = clientFor(fake);
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    const one = await client.models.retrieve("gpt-4o-mini");

    expect(ids).toContain("gpt-4o-mini");
    expect(ids.length).toBeGreaterThanOrEqual(2);
    expect(one).toMatchObject({ id: "gpt-4o-mini", object: "model", owned_by: "system" });
  });
});

describe("fake OpenAI upstream: errors and behaviour queue", () => {
  const cases = [
    { status: 400, errorClass: OpenAI.BadRequestError, type: "invalid_request_error", code: "invalid_type" },
    { status: 401, errorClass: OpenAI.AuthenticationError, type: "invalid_request_error", code: "invalid_api_key" },
    { status: 404, errorClass: OpenAI.NotFoundError, type: "invalid_request_error", code: "model_not_found" },
    { status: 429, errorClass: OpenAI.RateLimitError, type: "requests", code: "rate_limit_exceeded" },
    { status: 500, errorClass: OpenAI.InternalServerError, type: "server_error", code: null },
  ];
  for (const { status, errorClass, type, code } of cases) {
    test(`an error behaviour with status ${status} answers OpenAI's error body for it`, async () => {
      fake.enqueue({ kind: "error", status });
      const failure = await clientFor(fake)
        .chat.completions.create({ model: "m", messages })
        .catch((error: unknown) => error);

      expect(failure).toBeInstanceOf(errorClass);
      const apiError = failure as InstanceType<typeof OpenAI.APIError>;
      expect(apiError.status).toBe(status);
      expect(apiError.type).toBe(type);
      expect(apiError.code).toBe(code);
      expect(apiError.requestID).toStartWith("req_");
    });
  }

  test("an error behaviour can carry a chosen body and headers", async () => {
    fake.enqueue({
      kind: "error",
      status: 429,
      body: openAIErrorFixtures.insufficientQuota,
      headers: { "retry-after": "3" },
    });
    const response = await postJson("/chat/completions", { model: "m", messages, stream: true });

    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("3");
    expect(response.headers.get("content-type")).toBe("application/json");
    expect((await response.json()).error).toEqual({
      message: expect.stringContaining("exceeded your current quota"),
      type: "insufficient_quota",
      param: null,
      code: "insufficient_quota",
    });
  });

  test("queued behaviours answer one request each, in order, then the default answers", async () => {
    fake.enqueue({ kind: "error", status: 500 });
    fake.enqueue({ kind: "ok", content: "second" });
    const statuses: number[] = [];
    const contents: string[] = [];
    for (let index = 0; index < 4; index += 1) {
      if (index === 3) fake.setDefault({ kind: "ok", content: "new default" });
      const response = await postJson("/chat/completions", { model: "m", messages });
      statuses.push(response.status);
      const body = await response.json();
      contents.push(body.choices?.[0].message.content ?? body.error.type);
    }

    expect(statuses).toEqual([500, 200, 200, 200]);
    expect(contents).toEqual(["server_error", "second", fakeDefaults.content, "new default"]);
  });

  test("waitForRequests resolves once the server has seen that many requests", async () => {
    const sent = Promise.all([1, 2, 3].map(() => postJson("/chat/completions", { model: "m", messages })));
    await fake.waitForRequests(3);

    expect(fake.requests).toHaveLength(3);
    await sent;
  });

  test("an unknown path gets OpenAI's 404 Invalid URL body", async () => {
    const response = await postJson("/does-not-exist", {});

    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: {
        message: "Invalid URL (POST /v1/does-not-exist)",
        type: "invalid_request_error",
        param: null,
        code: null,
      },
    });
  });
});

describe("fake OpenAI upstream: requireApiKey", () => {
  let guarded: FakeOpenAIUpstream;

  beforeEach(async () => {
    guarded = await startFakeOpenAIUpstream({ requireApiKey: "sk-right" });
  });

  afterEach(async () => {
    await guarded.close();
  });

  test("a wrong key gets OpenAI's 401 invalid_api_key without consuming the queue", async () => {
    guarded.enqueue({ kind: "ok", content: "for the right key" });
    const failure = await clientFor(guarded, "sk-wrong")
      .chat.completions.create({ model: "m", messages })
      .catch((error: unknown) => error);
    const completion = await clientFor(guarded, "sk-right").chat.completions.create({ model: "m", messages });

    expect(failure).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).code).toBe("invalid_api_key");
    expect(completion.choices[0]!.message.content).toBe("for the right key");
  });

  test("a request without any Authorization header gets the 401 too", async () => {
    const response = await fetch(`${guarded.url}/models`);

    expect(response.status).toBe(401);
    expect(await response.json()).toEqual(openAIErrorFixtures.invalidApiKey);
  });
});
