import { describe, expect, test } from "bun:test";
import { buildResponsesRequest, speaksResponsesApi } from "./responses-request";

const channel = (config: Record<string, unknown>) => ({ baseUrl: "https://api.example.com/v1", apiKey: "sk-upstream", config });

describe("the Responses API on openai-compatible channels", () => {
  test("defaults per preset: OpenAI, Groq, xAI and OpenRouter speak it; chat-only vendors and unknown servers do not", () => {
    for (const preset of ["openai", "groq", "xai", "openrouter"]) expect(speaksResponsesApi(channel({ preset }))).toBe(true);
    for (const preset of ["deepseek", "vllm", "ollama", "mistral"]) expect(speaksResponsesApi(channel({ preset }))).toBe(false);
    expect(speaksResponsesApi(channel({}))).toBe(false);
  });

  test("a channel without a preset on a known vendor's base URL takes that vendor's default", () => {
    const at = (baseUrl: string, config: Record<string, unknown> = {}) => speaksResponsesApi({ baseUrl, apiKey: "sk-upstream", config });
    expect(at("https://api.openai.com/v1")).toBe(true);
    expect(at("https://api.openai.com/v1/")).toBe(true);
    expect(at("https://openrouter.ai/api/v1")).toBe(true);
    expect(at("https://api.deepseek.com/v1")).toBe(false);
    expect(at("http://localhost:8000/v1")).toBe(false);
    expect(at("https://api.openai.com/v1", { responsesApi: false })).toBe(false);
    // An explicit preset wins over the address.
    expect(at("https://api.openai.com/v1", { preset: "vllm" })).toBe(false);
  });

  test("the channel's responsesApi setting overrides its preset", () => {
    expect(speaksResponsesApi(channel({ preset: "vllm", responsesApi: true }))).toBe(true);
    expect(speaksResponsesApi(channel({ preset: "openai", responsesApi: false }))).toBe(false);
  });

  test("the client's text is relayed as is unless the model is renamed", () => {
    const body = { model: "gpt-4o", input: "Hi", custom_field: 1 };
    const text = '{"model":"gpt-4o","input":"Hi","custom_field":1}';
    const same = buildResponsesRequest({ channel: channel({ headers: { "x-extra": "1" } }), upstreamModel: "gpt-4o", body, text, stream: false });
    expect(same).toMatchObject({ url: "https://api.example.com/v1/responses", body: text });
    expect(same.headers).toMatchObject({ authorization: "Bearer sk-upstream", "x-extra": "1" });
    const renamed = buildResponsesRequest({ channel: channel({}), upstreamModel: "gpt-4o-2024-11-20", body, text, stream: false });
    expect(JSON.parse(renamed.body)).toEqual({ ...body, model: "gpt-4o-2024-11-20" });
  });
});
