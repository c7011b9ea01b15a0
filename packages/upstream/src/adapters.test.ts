import { describe, expect, test } from "bun:test";
import { adapterFor, channelTypeDescriptor, channelTypeDescriptors, channelTypeIds, isChannelType, registerProviderAdapter } from "./adapters";
import { openAICompatibleAdapter } from "./openai-compatible";

describe("the adapter registry", () => {
  test("describes every built-in type from its adapter: labels, default base URLs and the settings each takes", () => {
    expect(channelTypeIds()).toEqual(["openai-compatible", "anthropic", "gemini", "azure-openai", "bedrock", "vertex"]);
    const takes = (setting: "preset" | "apiVersion" | "responsesApi" | "structuredOutput" | "builtInTools" | "region" | "project" | "location") =>
      channelTypeDescriptors()
        .filter((descriptor) => descriptor.settings[setting])
        .map((descriptor) => descriptor.type);
    expect(takes("preset")).toEqual(["openai-compatible", "anthropic"]);
    expect(takes("apiVersion")).toEqual(["azure-openai"]);
    expect(takes("responsesApi")).toEqual(["openai-compatible", "azure-openai"]);
    expect(takes("structuredOutput")).toEqual(["anthropic", "vertex"]);
    expect(takes("builtInTools")).toEqual(["openai-compatible", "anthropic", "gemini", "azure-openai", "bedrock", "vertex"]);
    expect(takes("region")).toEqual(["bedrock"]);
    expect(channelTypeDescriptor("bedrock")).toMatchObject({ defaultBaseUrl: "https://bedrock-runtime.{region}.amazonaws.com", responsesApiDefault: null });
    expect(takes("project")).toEqual(["vertex"]);
    expect(takes("location")).toEqual(["vertex"]);
    expect(channelTypeDescriptor("openai-compatible")).toMatchObject({ defaultBaseUrl: "https://api.openai.com/v1", responsesApiDefault: "by preset or base URL" });
    expect(channelTypeDescriptor("azure-openai")).toMatchObject({ defaultBaseUrl: null, responsesApiDefault: "by API version" });
    expect(channelTypeDescriptor("anthropic")?.responsesApiDefault).toBeNull();
  });

  test("Azure, Bedrock and Vertex cannot list models, and say why; the others list through their adapter", () => {
    expect(channelTypeDescriptors().map((descriptor) => [descriptor.type, descriptor.canListModels])).toEqual([
      ["openai-compatible", true],
      ["anthropic", true],
      ["gemini", true],
      ["azure-openai", false],
      ["bedrock", false],
      ["vertex", false],
    ]);
    expect(channelTypeDescriptor("bedrock")?.cannotListModelsReason).toContain("control plane");
    expect(channelTypeDescriptor("vertex")?.cannotListModelsReason).toContain("enter them by hand");
    expect(channelTypeDescriptor("azure-openai")?.cannotListModelsReason).toContain("cannot list a resource's deployments");
    expect(channelTypeDescriptor("gemini")?.cannotListModelsReason).toBeNull();
  });

  test("descriptors are plain data: they survive JSON as they are (the console sends them to the form)", () => {
    const descriptors = channelTypeDescriptors();
    expect(JSON.parse(JSON.stringify(descriptors))).toEqual(descriptors);
  });

  test("the tokenizer family is the adapter's: Anthropic's, Gemini's, OpenAI's for Azure, unknown for OpenAI-compatible vendors Bedrock and Vertex (whose model names tell)", () => {
    expect(channelTypeIds().map((type) => [type, adapterFor(type).tokenizer ?? "other"])).toEqual([
      ["openai-compatible", "other"],
      ["anthropic", "anthropic"],
      ["gemini", "gemini"],
      ["azure-openai", "openai"],
      ["bedrock", "other"],
      ["vertex", "other"],
    ]);
  });

  test("every adapter describes what its capabilities leave open: why it cannot list models, what its Responses default is", () => {
    for (const type of channelTypeIds()) {
      const adapter = adapterFor(type);
      if (!adapter.listModels) expect(adapter.description.cannotListModelsReason, type).toBeString();
      if (adapter.buildResponsesRequest) expect(adapter.description.responsesApiDefault, type).toBeString();
      expect(adapter.buildResponsesRequest === undefined, type).toBe(adapter.speaksResponsesApi === undefined);
    }
  });

  test("an unknown type is relayed as OpenAI-compatible but cannot be chosen for a channel", () => {
    expect(adapterFor("something-else")).toBe(openAICompatibleAdapter);
    expect(isChannelType("something-else")).toBe(false);
    expect(channelTypeDescriptor("something-else")).toBeUndefined();
  });

  test("a second adapter of a registered type is refused; a registered one is taken out again by its disposer", () => {
    expect(() => registerProviderAdapter({ ...openAICompatibleAdapter })).toThrow("already registered");
    const remove = registerProviderAdapter({ ...openAICompatibleAdapter, type: "registry-test", description: { ...openAICompatibleAdapter.description, label: "Registry test" } });
    expect(isChannelType("registry-test")).toBe(true);
    expect(channelTypeDescriptor("registry-test")?.label).toBe("Registry test");
    remove();
    expect(isChannelType("registry-test")).toBe(false);
  });
});
