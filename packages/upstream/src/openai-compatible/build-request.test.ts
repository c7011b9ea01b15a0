import { describe, expect, test } from "bun:test";
import type { AdapterChannel, ChatTranslationInput } from "../provider-adapter";
import { buildChatRequest, buildCompletionsRequest, buildEmbeddingsRequest } from "./build-request";

const channel: AdapterChannel = { baseUrl: "https://api.example.com/v1", apiKey: "sk-upstream", config: {} };

function chat(text: string, overrides: Partial<ChatTranslationInput> = {}): ChatTranslationInput {
  const body = JSON.parse(text) as Record<string, unknown>;
  return { channel, upstreamModel: body.model as string, body, text, stream: body.stream === true, clientWantsUsage: false, ...overrides };
}

describe("openai-compatible requests", () => {
  test("the client's body goes out as the very text it sent when nothing must change", () => {
    const text = '{ "model":"gpt-4o-mini",  "messages":[{"role":"user","content":"hé"}], "x_vendor": 1 }';
    const request = buildChatRequest(chat(text));
    expect(request.body).toBe(text);
    expect(request.url).toBe("https://api.example.com/v1/chat/completions");
    expect(request.headers).toEqual({
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: "Bearer sk-upstream",
    });
  });

  test("a stream asks for its usage chunk by prepending the field, not by re-serialising the body", () => {
    const text = '  {"model":"m","stream":true,"messages":[{"role":"user","content":"a"}]}';
    expect(buildChatRequest(chat(text)).body).toBe(
      '{"stream_options":{"include_usage":true},"model":"m","stream":true,"messages":[{"role":"user","content":"a"}]}',
    );
    expect(buildChatRequest(chat(text, { clientWantsUsage: true })).body).toBe(text);
  });

  test("the body is re-serialised only for a renamed model, the client's own stream_options, or a vendor's quirks", () => {
    const renamed = buildChatRequest(chat('{"model":"public","messages":[]}', { upstreamModel: "vendor-model" }));
    expect(JSON.parse(renamed.body)).toEqual({ model: "vendor-model", messages: [] });
    const ownOptions = buildChatRequest(chat('{"model":"m","stream":true,"stream_options":{"other":1},"messages":[]}'));
    expect(JSON.parse(ownOptions.body).stream_options).toEqual({ other: 1, include_usage: true });
    const mistral = { ...channel, config: { preset: "mistral" } };
    const refused = buildChatRequest(chat('{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[]}', { channel: mistral }));
    expect(JSON.parse(refused.body)).toEqual({ model: "m", stream: true, messages: [] });
    const zhipu = { ...channel, config: { preset: "zhipu" } };
    const dropped = buildChatRequest(chat('{"model":"m","presence_penalty":1,"messages":[]}', { channel: zhipu }));
    expect(JSON.parse(dropped.body)).toEqual({ model: "m", messages: [] });
  });

  test("legacy completions and embeddings go to their own paths, the channel's extra headers last", () => {
    const withHeaders = { ...channel, config: { headers: { "HTTP-Referer": "https://tollgate.example" } } };
    const completions = buildCompletionsRequest(chat('{"model":"m","prompt":"a"}', { channel: withHeaders }));
    expect(completions.url).toBe("https://api.example.com/v1/completions");
    expect(completions.headers["HTTP-Referer"]).toBe("https://tollgate.example");
    const text = '{"model":"e","input":"a","encoding_format":"base64"}';
    const body = JSON.parse(text);
    expect(buildEmbeddingsRequest({ channel, upstreamModel: "e", body, text })).toMatchObject({ url: "https://api.example.com/v1/embeddings", body: text });
    expect(JSON.parse(buildEmbeddingsRequest({ channel, upstreamModel: "e2", body, text }).body).model).toBe("e2");
  });
});
