import { describe, expect, test } from "bun:test";
import { azureUrl } from "./azure-openai/upstream-endpoint";
import { buildMediaRequest, servesMediaOperation } from "./media-request";

const channel = { baseUrl: "https://upstream.example/v1", apiKey: "sk-upstream", config: { headers: { "x-team": "media" } } };

describe("media requests", () => {
  test("an OpenAI-compatible channel gets the operation under its base URL with a bearer key", () => {
    const request = buildMediaRequest("openai-compatible", channel, "whisper-1", "audio/transcriptions", '{"model":"whisper-1"}');
    expect(request).toEqual({
      url: "https://upstream.example/v1/audio/transcriptions",
      headers: { "x-team": "media", "content-type": "application/json", authorization: "Bearer sk-upstream" },
      body: '{"model":"whisper-1"}',
    });
  });

  test("an upload keeps the content type (and boundary) it came with; a form leaves it to fetch", () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const upload = buildMediaRequest("openai-compatible", channel, "m", "images/edits", { bytes, contentType: "multipart/form-data; boundary=abc" });
    expect(upload.headers["content-type"]).toBe("multipart/form-data; boundary=abc");
    expect(upload.body).toBe(bytes);
    const form = buildMediaRequest("openai-compatible", channel, "m", "images/edits", new FormData());
    expect(form.headers["content-type"]).toBeUndefined();
  });

  test("an Azure channel gets the deployment's path, its api version and the api-key header", () => {
    const azure = { baseUrl: "https://res.openai.azure.com", apiKey: "azure-key", config: { apiVersion: "2025-04-01-preview" } };
    const request = buildMediaRequest("azure-openai", azure, "tts deployment", "audio/speech", "{}");
    expect(request.url).toBe("https://res.openai.azure.com/openai/deployments/tts%20deployment/audio/speech?api-version=2025-04-01-preview");
    expect(request.headers["api-key"]).toBe("azure-key");
    expect(request.headers.authorization).toBeUndefined();
    const v1 = buildMediaRequest("azure-openai", { ...azure, config: { apiVersion: "v1" } }, "d", "images/generations", "{}");
    expect(v1.url).toBe("https://res.openai.azure.com/openai/v1/images/generations");
  });

  test("Azure serves images and audio but not moderations or rerank; Anthropic and Gemini serve none", () => {
    expect(servesMediaOperation("azure-openai", "audio/transcriptions")).toBe(true);
    expect(servesMediaOperation("azure-openai", "moderations")).toBe(false);
    expect(servesMediaOperation("azure-openai", "rerank")).toBe(false);
    expect(servesMediaOperation("openai-compatible", "rerank")).toBe(true);
    expect(servesMediaOperation("anthropic", "images/generations")).toBe(false);
    expect(servesMediaOperation("gemini", "audio/speech")).toBe(false);
  });
});

describe("media as an adapter capability", () => {
  test("a type without the capability serves nothing and gets no request built", () => {
    expect(() => buildMediaRequest("anthropic", channel, "m", "images/generations", "{}")).toThrow("does not serve");
    expect(() => buildMediaRequest("azure-openai", channel, "m", "rerank", "{}")).toThrow("does not serve");
  });

  test("Azure's media URL is its chat and embeddings URL rule, for a dated version and for v1", () => {
    for (const apiVersion of ["2024-10-21", "v1"]) {
      const azure = { baseUrl: "https://res.openai.azure.com", apiKey: "k", config: { apiVersion } };
      const media = buildMediaRequest("azure-openai", azure, "dep", "audio/speech", "{}").url;
      expect(media).toBe(azureUrl(azure, "dep", "audio/speech"));
      expect(azureUrl(azure, "dep", "embeddings")).toBe(media.replace("audio/speech", "embeddings"));
    }
  });
});
