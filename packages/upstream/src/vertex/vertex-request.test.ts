import { describe, expect, test } from "bun:test";
import type { AdapterChannel } from "../provider-adapter";
import { TranslationError } from "../provider-adapter";
import { vertexAdapter } from ".";
import { parseServiceAccountKey } from "./service-account";
import { publisherOf, vertexModelUrl } from "./vertex-endpoint";

const channel = (config: Record<string, unknown>, baseUrl = "https://aiplatform.googleapis.com"): AdapterChannel => ({ baseUrl, apiKey: "{}", config });
const body = { model: "public", messages: [{ role: "user", content: "Hi" }], max_tokens: 32 };

describe("Vertex AI endpoints", () => {
  test("Google's default base URL is served from the location's own host, or aiplatform.googleapis.com for the global location", () => {
    expect(vertexModelUrl(channel({ project: "p1", location: "us-east5" }), "gemini-2.5-flash", "generateContent")).toBe(
      "https://us-east5-aiplatform.googleapis.com/v1/projects/p1/locations/us-east5/publishers/google/models/gemini-2.5-flash:generateContent",
    );
    expect(vertexModelUrl(channel({ project: "p1", location: "global" }), "gemini-2.5-flash", "streamGenerateContent")).toBe(
      "https://aiplatform.googleapis.com/v1/projects/p1/locations/global/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    );
  });

  test("another base URL (a private endpoint, a test's fake) is used as configured; the location defaults to us-central1", () => {
    expect(vertexModelUrl(channel({ project: "p1" }, "http://127.0.0.1:9"), "claude-sonnet-4@20250514", "rawPredict")).toBe(
      "http://127.0.0.1:9/v1/projects/p1/locations/us-central1/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict",
    );
  });

  test("Claude models are Anthropic's, every other model Google's, whichever way the mapping names them", () => {
    expect(publisherOf("claude-opus-4-1@20250805")).toBe("anthropic");
    expect(publisherOf("publishers/anthropic/models/claude-3-5-haiku@20241022")).toBe("anthropic");
    expect(publisherOf("gemini-2.5-pro")).toBe("google");
    expect(publisherOf("models/text-embedding-005")).toBe("google");
  });

  test("the project is the channel's, else the service account's; a channel with neither is refused as a capability gap", () => {
    const keyed: AdapterChannel = { baseUrl: "https://aiplatform.googleapis.com", apiKey: JSON.stringify({ project_id: "from-key" }), config: {} };
    expect(vertexModelUrl(keyed, "gemini-2.5-flash", "generateContent")).toContain("/projects/from-key/");
    const error = (() => {
      try {
        vertexModelUrl(channel({}), "gemini-2.5-flash", "generateContent");
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(TranslationError);
    expect((error as TranslationError).code).toBe("unsupported_parameter");
  });
});

describe("Vertex AI request bodies", () => {
  test("a Claude chat request is Anthropic's body with Vertex's anthropic_version and without the model", () => {
    const request = vertexAdapter.buildChatRequest({ channel: channel({ project: "p" }), upstreamModel: "claude-sonnet-4@20250514", body, stream: true });
    expect(request.url).toEndWith(":streamRawPredict");
    const sent = JSON.parse(request.body);
    expect(sent).toMatchObject({ anthropic_version: "vertex-2023-10-16", max_tokens: 32, stream: true, messages: [{ role: "user" }] });
    expect(sent.model).toBeUndefined();
  });

  test("a Gemini chat request is Gemini's body, without the Gemini API's key header", () => {
    const request = vertexAdapter.buildChatRequest({ channel: channel({ project: "p" }), upstreamModel: "gemini-2.5-flash", body, stream: false });
    expect(JSON.parse(request.body)).toMatchObject({ contents: [{ role: "user", parts: [{ text: "Hi" }] }], generationConfig: { maxOutputTokens: 32 } });
    expect(Object.keys(request.headers).map((name) => name.toLowerCase())).not.toContain("x-goog-api-key");
  });

  test("native Messages requests are Claude's only: null for Google's models, which are translated through chat", () => {
    const input = { channel: channel({ project: "p" }), body: { model: "x", max_tokens: 5, messages: [] }, text: "{}", version: null, beta: null };
    expect(vertexAdapter.messages!({ ...input, upstreamModel: "gemini-2.5-flash" })).toBeNull();
    expect(vertexAdapter.messages!({ ...input, upstreamModel: "claude-haiku-4-5@20251001" })?.url).toEndWith("/publishers/anthropic/models/claude-haiku-4-5@20251001:rawPredict");
  });

  test("Gemini-API requests go as they came to Google's models; null (translated) for Claude's and for embeddings", () => {
    const input = { channel: channel({ project: "p", location: "global" }), body: {}, text: '{"contents":[]}' };
    const request = vertexAdapter.geminiNative!({ ...input, upstreamModel: "gemini-2.5-pro", method: "streamGenerateContent" });
    expect(request?.url).toBe("https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
    expect(request?.body).toBe('{"contents":[]}');
    for (const translated of [
      { upstreamModel: "claude-sonnet-4@20250514", method: "generateContent" as const },
      { upstreamModel: "gemini-embedding-001", method: "embedContent" as const },
    ]) {
      expect(vertexAdapter.geminiNative!({ ...input, ...translated })).toBeNull();
    }
  });

  test("Vertex's own errors read as Google's, a Claude model's as Anthropic's", () => {
    const google = vertexAdapter.mapError(403, JSON.stringify({ error: { code: 403, message: "Permission denied", status: "PERMISSION_DENIED" } }), channel({}));
    expect(google).toMatchObject({ status: 502, code: "upstream_auth_failed", channelFault: true });
    const claude = vertexAdapter.mapError(529, JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }), channel({}));
    expect(claude).toMatchObject({ status: 503, code: "upstream_overloaded", retryable: true, channelFault: false });
  });
});

describe("service-account keys", () => {
  const key = { type: "service_account", client_email: "a@p.iam.gserviceaccount.com", private_key: "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n" };

  test("a key is read with Google's token URI by default", () => {
    expect(parseServiceAccountKey(JSON.stringify(key))).toMatchObject({ clientEmail: key.client_email, tokenUri: "https://oauth2.googleapis.com/token" });
  });

  test("a key the exchange cannot use is refused naming the field, never quoting a value", () => {
    const cases: Array<[string, string]> = [
      ["AIzaSy-an-api-key", "not JSON"],
      [JSON.stringify({ ...key, type: "authorized_user" }), '"type" must be "service_account"'],
      [JSON.stringify({ ...key, client_email: undefined }), '"client_email" is missing'],
      [JSON.stringify({ ...key, private_key: "secret-not-pem" }), '"private_key" is missing or is not a PEM private key'],
      [JSON.stringify({ ...key, token_uri: "http://token.example/token" }), '"token_uri" must be an https URL'],
      [JSON.stringify({ ...key, token_uri: "https://169.254.169.254/token" }), '"token_uri": Must not be a link-local or cloud metadata address'],
    ];
    for (const [text, message] of cases) {
      expect(() => parseServiceAccountKey(text)).toThrow(message);
      try {
        parseServiceAccountKey(text);
      } catch (error) {
        expect((error as Error).message).not.toContain("secret-not-pem");
        expect((error as Error).message).not.toContain("AIzaSy");
      }
    }
  });
});
