import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { buildEmbeddingsRequest, translateEmbeddingsResponse } from "./embeddings";

const fixtures = join(import.meta.dir, "../../../../test/fixtures/azure-openai");
const channel = { baseUrl: "https://tollgate-test.openai.azure.com", apiKey: "test-azure-key", config: {} };

describe("azure-openai embeddings", () => {
  test("posts to the deployment's embeddings with encoding_format passed through", () => {
    const request = buildEmbeddingsRequest({
      channel,
      upstreamModel: "embedding-small",
      body: { model: "text-embedding-3-small", input: "The food was delicious", encoding_format: "base64" },
    });
    expect(request.url).toMatchInlineSnapshot(`"https://tollgate-test.openai.azure.com/openai/deployments/embedding-small/embeddings?api-version=2024-10-21"`);
    expect(request.headers["api-key"]).toBe("test-azure-key");
    expect(JSON.parse(request.body)).toEqual({ model: "embedding-small", input: "The food was delicious", encoding_format: "base64" });
  });

  test("the answer passes through under the public model, with its usage", async () => {
    const upstream = (await Bun.file(join(fixtures, "embeddings.json")).json()) as Record<string, unknown>;
    const { response, usage } = translateEmbeddingsResponse(upstream, {
      upstreamModel: "embedding-small",
      body: { model: "text-embedding-3-small", input: "The food was delicious" },
    });
    expect(response).toEqual({ ...upstream, model: "text-embedding-3-small" });
    expect(usage).toEqual({ promptTokens: 5, completionTokens: 0, cachedTokens: 0 });
  });
});
