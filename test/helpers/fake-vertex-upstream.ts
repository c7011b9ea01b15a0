import { type FakeAnthropicBehaviour, type FakeAnthropicUpstream, startFakeAnthropicUpstream } from "./fake-anthropic-upstream";
import { type FakeGeminiBehaviour, type FakeGeminiUpstream, startFakeGeminiUpstream } from "./fake-gemini-upstream";
import type { FakeGoogleTokenEndpoint } from "./fake-google-token-endpoint";
import { RequestLog, startFakeServer } from "./fake-upstream-kit";

/**
 * A fake Vertex AI data plane on 127.0.0.1:0
 * (https://cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.publishers.models):
 * `POST /v1/projects/{project}/locations/{location}/publishers/google/models/{model}:generateContent`,
 * `:streamGenerateContent?alt=sse`, `:countTokens`, `:predict` (text embeddings), and
 * `publishers/anthropic/models/{model}:rawPredict` / `:streamRawPredict`
 * (https://docs.anthropic.com/en/api/claude-on-vertex-ai). It answers only a bearer access token the fake
 * token endpoint issued and has not expired (401 UNAUTHENTICATED otherwise, in Google's error body), only
 * the project and location it serves (403 / 404 as Vertex), and for Claude only a body with
 * `anthropic_version: "vertex-2023-10-16"` and no `model` (Anthropic's 400 otherwise). The publishers'
 * own answers are written by the Gemini and Anthropic fakes, which Vertex's bodies are the same as: each
 * checked request is handed to them in their API's own terms, and their answer relayed as it is.
 */
export interface FakeVertexUpstream {
  /** Base URL as a test configures it: http://127.0.0.1:PORT */
  url: string;
  requests: RequestLog<{ path: string; search: string; headers: Record<string, string>; body: any }>;
  /** What the next Gemini request is answered with. */
  enqueueGemini(behaviour: FakeGeminiBehaviour): void;
  /** What the next Claude request is answered with. */
  enqueueClaude(behaviour: FakeAnthropicBehaviour): void;
  close(): Promise<void>;
}

const MODEL_PATH = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):(\w+)$/;
const PUBLISHER_KEY = "publisher-side-key";

function googleError(status: number, message: string, googleStatus: string): Response {
  return Response.json({ error: { code: status, message, status: googleStatus } }, { status });
}

function vectorOf(text: string): number[] {
  return Array.from({ length: 8 }, (_, index) => ((text.length * (index + 7)) % 97) / 97 - 0.5);
}

export async function startFakeVertexUpstream(options: { tokens: FakeGoogleTokenEndpoint; project: string; location: string }): Promise<FakeVertexUpstream> {
  const gemini: FakeGeminiUpstream = await startFakeGeminiUpstream({ requireApiKey: PUBLISHER_KEY });
  const anthropic: FakeAnthropicUpstream = await startFakeAnthropicUpstream({ requireApiKey: PUBLISHER_KEY });
  const requests = new RequestLog<{ path: string; search: string; headers: Record<string, string>; body: any }>();

  const server = startFakeServer({
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const text = await request.text();
      let body: any = null;
      try {
        body = JSON.parse(text);
      } catch {
        // Refused below.
      }
      requests.record({ path: url.pathname, search: url.search, headers: Object.fromEntries(request.headers), body });
      const bearer = request.headers.get("authorization")?.match(/^Bearer (\S+)$/)?.[1];
      if (!bearer || !options.tokens.accepts(bearer)) {
        return googleError(
          401,
          "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
          "UNAUTHENTICATED",
        );
      }
      const match = MODEL_PATH.exec(url.pathname);
      if (!match || request.method !== "POST") return googleError(404, "The requested URL was not found on this server.", "NOT_FOUND");
      const [, project, location, publisher, model, method] = match as unknown as [string, string, string, string, string, string];
      if (project !== options.project) {
        return googleError(403, `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/${project}/locations/${location}/publishers/${publisher}/models/${model}' (or it may not exist).`, "PERMISSION_DENIED");
      }
      if (location !== options.location) return googleError(404, `Publisher Model \`projects/${project}/locations/${location}/publishers/${publisher}/models/${model}\` not found.`, "NOT_FOUND");
      if (body === null || typeof body !== "object") return googleError(400, "Invalid JSON payload received.", "INVALID_ARGUMENT");

      if (publisher === "anthropic") {
        if (method !== "rawPredict" && method !== "streamRawPredict") return googleError(400, `Unsupported method ${method} for a partner model.`, "INVALID_ARGUMENT");
        if (body.anthropic_version !== "vertex-2023-10-16") {
          return Response.json({ type: "error", error: { type: "invalid_request_error", message: "anthropic_version: Input should be 'vertex-2023-10-16'" } }, { status: 400 });
        }
        if ("model" in body) return Response.json({ type: "error", error: { type: "invalid_request_error", message: "model: Extra inputs are not permitted" } }, { status: 400 });
        if ((method === "streamRawPredict") !== (body.stream === true)) {
          return Response.json({ type: "error", error: { type: "invalid_request_error", message: "stream must match the method" } }, { status: 400 });
        }
        const { anthropic_version: _version, ...messages } = body;
        const headers: Record<string, string> = { "content-type": "application/json", "x-api-key": PUBLISHER_KEY, "anthropic-version": "2023-06-01" };
        const beta = request.headers.get("anthropic-beta");
        if (beta) headers["anthropic-beta"] = beta;
        return fetch(`${anthropic.url}/v1/messages`, { method: "POST", headers, body: JSON.stringify({ ...messages, model }) });
      }

      if (method === "predict") {
        const instances: Array<{ content?: string }> = Array.isArray(body.instances) ? body.instances : [];
        return Response.json({
          predictions: instances.map((instance) => ({
            embeddings: { values: vectorOf(instance.content ?? ""), statistics: { token_count: Math.ceil((instance.content ?? "").length / 4), truncated: false } },
          })),
          metadata: { billableCharacterCount: instances.reduce((sum, instance) => sum + (instance.content ?? "").length, 0) },
        });
      }
      if (method === "countTokens") return Response.json({ totalTokens: Math.ceil(text.length / 4), totalBillableCharacters: text.length });
      if (method !== "generateContent" && method !== "streamGenerateContent") return googleError(400, `Unsupported method ${method}.`, "INVALID_ARGUMENT");
      if (method === "streamGenerateContent" && url.searchParams.get("alt") !== "sse") {
        return googleError(400, "This fake streams only as server-sent events (alt=sse).", "INVALID_ARGUMENT");
      }
      const search = method === "streamGenerateContent" ? "?alt=sse" : "";
      return fetch(`${gemini.url}/v1beta/models/${model}:${method}${search}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-goog-api-key": PUBLISHER_KEY },
        body: text,
      });
    },
  });

  return {
    url: server.origin,
    requests,
    enqueueGemini: (behaviour) => gemini.enqueue(behaviour),
    enqueueClaude: (behaviour) => anthropic.enqueue(behaviour),
    async close() {
      await server.close();
      await gemini.close();
      await anthropic.close();
    },
  };
}
