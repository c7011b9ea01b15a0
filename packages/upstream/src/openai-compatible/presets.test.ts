import { describe, expect, test } from "bun:test";
import { openAICompatiblePresets } from "./presets";

describe("openAICompatiblePresets", () => {
  test("covers the vendors the console offers", () => {
    expect(Object.keys(openAICompatiblePresets).sort()).toEqual(
      ["deepseek", "groq", "mistral", "moonshot", "ollama", "openai", "openrouter", "qwen", "vllm", "xai", "zhipu"].sort(),
    );
  });

  test("base URLs are absolute, include the version path and have no trailing slash", () => {
    for (const [name, preset] of Object.entries(openAICompatiblePresets)) {
      const url = new URL(preset.baseUrl);
      expect({ name, protocol: url.protocol }).toEqual({
        name,
        protocol: ["vllm", "ollama"].includes(name) ? "http:" : "https:",
      });
      expect(preset.baseUrl.endsWith("/")).toBe(false);
      expect(url.pathname).toMatch(/\/v\d+$/);
      expect(preset.label.length).toBeGreaterThan(0);
    }
  });

  test("quirks name only fields OpenAI's chat request has", () => {
    const openAIFields = new Set([
      "frequency_penalty", "presence_penalty", "logprobs", "top_logprobs", "logit_bias", "store", "metadata",
      "service_tier", "user", "seed", "parallel_tool_calls", "max_completion_tokens", "n",
    ]);
    for (const preset of Object.values(openAICompatiblePresets)) {
      for (const field of preset.quirks?.dropFields ?? []) expect(openAIFields.has(field)).toBe(true);
    }
    expect(openAICompatiblePresets.deepseek!.quirks?.reasoningContent).toBe(true);
    expect(openAICompatiblePresets.mistral!.quirks?.noStreamOptions).toBe(true);
  });
});
