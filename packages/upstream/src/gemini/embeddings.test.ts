import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { TranslationError } from "../provider-adapter";
import { buildEmbeddingsRequest, float32Base64, translateEmbeddingsResponse } from "./embeddings";

const fixtures = join(import.meta.dir, "../../../../test/fixtures/gemini");
const channel = { baseUrl: "https://generativelanguage.googleapis.com", apiKey: "test-gemini-key", config: {} };

describe("gemini embeddings", () => {
  test("inputs become batchEmbedContents requests for models/<name>, dimensions outputDimensionality", () => {
    const request = buildEmbeddingsRequest({
      channel,
      upstreamModel: "gemini-embedding-001",
      body: { model: "embed", input: ["first text", "second text"], dimensions: 768 },
    });
    expect(request.url).toMatchInlineSnapshot(`"https://generativelanguage.googleapis.com/v1beta/models/gemini-embedding-001:batchEmbedContents"`);
    expect(request.headers["x-goog-api-key"]).toBe("test-gemini-key");
    expect(JSON.parse(request.body)).toMatchInlineSnapshot(`
      {
        "requests": [
          {
            "content": {
              "parts": [
                {
                  "text": "first text",
                },
              ],
            },
            "model": "models/gemini-embedding-001",
            "outputDimensionality": 768,
          },
          {
            "content": {
              "parts": [
                {
                  "text": "second text",
                },
              ],
            },
            "model": "models/gemini-embedding-001",
            "outputDimensionality": 768,
          },
        ],
      }
    `);
  });

  test("one string is a batch of one; token arrays cannot be sent", () => {
    const request = buildEmbeddingsRequest({ channel, upstreamModel: "text-embedding-004", body: { input: "hello" } });
    expect(JSON.parse(request.body)).toEqual({
      requests: [{ model: "models/text-embedding-004", content: { parts: [{ text: "hello" }] } }],
    });
    expect(() => buildEmbeddingsRequest({ channel, upstreamModel: "m", body: { input: [[1, 2, 3]] } })).toThrow(TranslationError);
  });

  test("the answer is OpenAI's list shape, named after the public model, usage left to the gateway", async () => {
    const upstream = await Bun.file(join(fixtures, "batch-embed-contents.json")).json();
    const { response, usage } = translateEmbeddingsResponse(upstream, {
      upstreamModel: "gemini-embedding-001",
      body: { model: "embed", input: ["first text", "second text"] },
    });
    expect(usage).toBeNull();
    expect(response.object).toBe("list");
    expect(response.model).toBe("embed");
    const data = response.data as Array<{ object: string; index: number; embedding: number[] }>;
    expect(data.map((entry) => [entry.object, entry.index, entry.embedding.length])).toEqual([
      ["embedding", 0, 8],
      ["embedding", 1, 8],
    ]);
    expect(data[0]!.embedding[0]).toBe(0.0123291);
  });

  test("encoding_format base64 gives little-endian float32 bytes, as the openai client decodes them", async () => {
    const upstream = (await Bun.file(join(fixtures, "batch-embed-contents.json")).json()) as { embeddings: Array<{ values: number[] }> };
    const { response } = translateEmbeddingsResponse(upstream, {
      upstreamModel: "gemini-embedding-001",
      body: { model: "embed", input: ["a", "b"], encoding_format: "base64" },
    });
    const encoded = (response.data as Array<{ embedding: string }>)[1]!.embedding;
    const bytes = Buffer.from(encoded, "base64");
    const decoded = Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4));
    expect(decoded).toEqual(upstream.embeddings[1]!.values.map((value) => Math.fround(value)));
    expect(float32Base64([1, -2])).toBe("AACAPwAAAMA=");
  });
});
