import { describe, expect, test } from "bun:test";
import { defineAdapter } from "./define-adapter";
import type { ProviderAdapter } from "./provider-adapter";

const members: Pick<ProviderAdapter, "buildChatRequest" | "translateChatResponse" | "createChatStreamTransformer" | "mapError"> = {
  buildChatRequest: () => ({ url: "https://upstream.example/chat", headers: {}, body: "{}" }),
  translateChatResponse: () => ({ completion: {}, usage: null }),
  createChatStreamTransformer: () => new TransformStream(),
  mapError: () => ({ status: 502, message: "failed", type: "server_error", code: null, param: null, retryable: true, channelFault: false }),
};

describe("defineAdapter", () => {
  test("settings the definition does not name do not apply, and answers are translated unless it relays OpenAI's format", () => {
    const adapter = defineAdapter({ type: "plain", description: { label: "Plain", defaultBaseUrl: null }, ...members });
    expect(adapter.description.settings).toEqual({ preset: false, apiVersion: false, structuredOutput: false });
    expect(adapter.relaysOpenAIFormat).toBe(false);
  });

  test("what the definition states is kept: its settings, its relaying, its members and optional capabilities", () => {
    const listModels = async () => ["m"];
    const adapter = defineAdapter({
      type: "stated",
      description: { label: "Stated", defaultBaseUrl: "https://stated.example", settings: { apiVersion: true }, cannotListModelsReason: "none" },
      relaysOpenAIFormat: true,
      ...members,
      listModels,
      tokenizer: "gemini",
    });
    expect(adapter.description).toEqual({
      label: "Stated",
      defaultBaseUrl: "https://stated.example",
      settings: { preset: false, apiVersion: true, structuredOutput: false },
      cannotListModelsReason: "none",
    });
    expect(adapter.relaysOpenAIFormat).toBe(true);
    expect(adapter.type).toBe("stated");
    expect(adapter.mapError).toBe(members.mapError);
    expect(adapter.listModels).toBe(listModels);
    expect(adapter.tokenizer).toBe("gemini");
  });
});
