import { describe, expect, test } from "bun:test";
import { canonicalBody, responseCacheKey } from "./cache-key";
import { isRefusal } from "./response-cache";

describe("responseCacheKey", () => {
  const body = { model: "m", messages: [{ role: "user", content: "hi" }], temperature: 0.2, response_format: { type: "json_schema", json_schema: { name: "a", schema: { b: 1, a: 2 } } } };

  test("key order at any depth and whitespace do not change the key", () => {
    const reordered = JSON.parse(
      `{"response_format":{"json_schema":{"schema":{"a":2,"b":1},"name":"a"},"type":"json_schema"},  "temperature":0.2,\n"messages":[{"content":"hi","role":"user"}],"model":"m"}`,
    );
    expect(responseCacheKey("chat.completions", "u1", "m", reordered)).toBe(responseCacheKey("chat.completions", "u1", "m", body));
  });

  test("stream and user are left out; every other field counts, stream_options too", () => {
    const streamed = { ...body, stream: true, user: "end-user-7" };
    expect(responseCacheKey("chat.completions", "u1", "m", streamed)).toBe(responseCacheKey("chat.completions", "u1", "m", body));
    expect(responseCacheKey("chat.completions", "u1", "m", { ...streamed, stream_options: { include_usage: true } })).not.toBe(
      responseCacheKey("chat.completions", "u1", "m", streamed),
    );
    expect(responseCacheKey("chat.completions", "u1", "m", { ...body, temperature: 0.3 })).not.toBe(responseCacheKey("chat.completions", "u1", "m", body));
    expect(responseCacheKey("chat.completions", "u1", "m", { ...body, seed: 1 })).not.toBe(responseCacheKey("chat.completions", "u1", "m", body));
  });

  test("the model, the endpoint and the scope each give another key", () => {
    const key = responseCacheKey("chat.completions", "u1", "m", body);
    expect(responseCacheKey("chat.completions", "u1", "other", body)).not.toBe(key);
    expect(responseCacheKey("messages", "u1", "m", body)).not.toBe(key);
    expect(responseCacheKey("chat.completions", "u2", "m", body)).not.toBe(key);
    expect(responseCacheKey("chat.completions", "t1", "m", body)).not.toBe(key);
  });

  test("array order counts (messages are a sequence), and a nested user field is kept", () => {
    const swapped = { ...body, messages: [{ role: "user", content: "b" }, { role: "user", content: "a" }] };
    const ordered = { ...body, messages: [{ role: "user", content: "a" }, { role: "user", content: "b" }] };
    expect(canonicalBody(swapped)).not.toBe(canonicalBody(ordered));
    expect(canonicalBody({ metadata: { user: "x" } })).toBe('{"metadata":{"user":"x"}}');
  });
});

describe("isRefusal", () => {
  test("a content filter, a refusal or a safety stop is a refusal; an ordinary answer is not", () => {
    expect(isRefusal('{"choices":[{"finish_reason":"content_filter"}]}')).toBe(true);
    expect(isRefusal('{"choices":[{"message":{"content":null,"refusal":"I cannot help with that."}}]}')).toBe(true);
    expect(isRefusal('{"type":"message","stop_reason":"refusal"}')).toBe(true);
    expect(isRefusal('{"candidates":[{"finishReason":"SAFETY"}]}')).toBe(true);
    expect(isRefusal('{"choices":[{"message":{"content":"ok","refusal":null},"finish_reason":"stop"}]}')).toBe(false);
    expect(isRefusal('data: {"choices":[{"delta":{"content":"a"},"finish_reason":null}]}\n\ndata: [DONE]\n\n')).toBe(false);
  });
});
