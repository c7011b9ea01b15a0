import { describe, expect, test } from "bun:test";
import { adapterFor } from "../adapters";
import type { ChatTranslationInput } from "../provider-adapter";
import { withoutCacheControl } from "./strip-cache-control";

const hinted = {
  model: "m",
  messages: [
    { role: "system", content: "Stable.", cache_control: { type: "ephemeral" } },
    { role: "user", content: [{ type: "text", text: "Long document.", cache_control: { type: "ephemeral", ttl: "1h" } }, { type: "text", text: "Question?" }] },
  ],
  tools: [{ type: "function", function: { name: "f", parameters: { type: "object", properties: {} } }, cache_control: { type: "ephemeral" } }],
};

function sentBody(type: string, config: Record<string, unknown> = {}): Record<string, any> {
  const input: ChatTranslationInput = {
    channel: { baseUrl: type === "azure-openai" ? "https://example.openai.azure.com" : "https://upstream.example/v1", apiKey: "sk-test", config },
    upstreamModel: "m",
    body: hinted,
    text: JSON.stringify(hinted),
    stream: false,
  };
  return JSON.parse(adapterFor(type).buildChatRequest(input).body);
}

describe("cache_control on upstreams that do not read it", () => {
  test("an OpenAI-compatible channel gets the request without it, everything else as sent", () => {
    const body = sentBody("openai-compatible");
    expect(JSON.stringify(body)).not.toContain("cache_control");
    expect(body.messages[1].content).toEqual([{ type: "text", text: "Long document." }, { type: "text", text: "Question?" }]);
    expect(body.tools[0].function.name).toBe("f");
    expect(sentBody("azure-openai").messages[0]).toEqual({ role: "system", content: "Stable." });
  });

  test("an OpenRouter channel keeps it: OpenRouter passes breakpoints on to Anthropic and Gemini models", () => {
    expect(sentBody("openai-compatible", { preset: "openrouter" })).toEqual(hinted);
  });

  test("a Gemini channel ignores it in translation", () => {
    expect(JSON.stringify(sentBody("gemini"))).not.toContain("cache_control");
  });

  test("a body without a hint is the same object, so that the client's text is relayed as it came", () => {
    const plain = { model: "m", messages: [{ role: "user", content: "Hi" }] };
    expect(withoutCacheControl(plain)).toBe(plain);
    expect(withoutCacheControl(hinted, "{}")).toBe(hinted);
    const stripped = withoutCacheControl(hinted);
    expect(stripped).not.toBe(hinted);
    expect(hinted.messages[0]).toHaveProperty("cache_control");
  });
});
