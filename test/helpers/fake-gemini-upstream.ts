import { framesResponse, startFakeServer } from "./fake-upstream-kit";

/**
 * A fake Gemini API (generativelanguage v1beta) on 127.0.0.1:0: generateContent, streamGenerateContent with
 * alt=sse (each event a full GenerateContentResponse), batchEmbedContents/embedContent, countTokens
 * (`{totalTokens}`, a word count standing in for Gemini's tokenizer), and Google's error body, as the public
 * API reference documents them.
 */
export type FakeGeminiBehaviour =
  | { kind: "text"; text?: string; promptTokens?: number; candidatesTokens?: number; cachedTokens?: number }
  | { kind: "function"; name: string; args: Record<string, unknown> }
  /**
   * A model asked for `value` as JSON: with `responseMimeType: "application/json"` (and a responseSchema)
   * the candidate's text is the JSON itself, as https://ai.google.dev/gemini-api/docs/structured-output
   * documents; without, prose around a JSON block, as an unconstrained model writes it.
   */
  | { kind: "json"; value: Record<string, unknown> }
  | { kind: "error"; status: number; googleStatus?: string; message?: string };

function answerForJson(value: Record<string, unknown>, body: any): Exclude<FakeGeminiBehaviour, { kind: "json" }> {
  if (body?.generationConfig?.responseMimeType === "application/json") return { kind: "text", text: JSON.stringify(value, null, 1) };
  return { kind: "text", text: `Here you go:\n\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\`` };
}

export interface FakeGeminiUpstream {
  /** Base URL as an operator configures it: http://127.0.0.1:PORT */
  url: string;
  requests: Array<{ path: string; search: string; headers: Record<string, string>; body: any }>;
  enqueue(behaviour: FakeGeminiBehaviour): void;
  close(): Promise<void>;
}

const encoder = new TextEncoder();

function googleStatus(status: number): string {
  if (status === 400) return "INVALID_ARGUMENT";
  if (status === 401) return "UNAUTHENTICATED";
  if (status === 403) return "PERMISSION_DENIED";
  if (status === 404) return "NOT_FOUND";
  if (status === 429) return "RESOURCE_EXHAUSTED";
  if (status === 503) return "UNAVAILABLE";
  return "INTERNAL";
}

function vectorOf(text: string): number[] {
  const vector: number[] = [];
  let seed = 0;
  for (const character of text) seed = (seed * 31 + character.charCodeAt(0)) % 10007;
  for (let index = 0; index < 8; index++) vector.push(((seed * (index + 3)) % 997) / 997 - 0.5);
  return vector;
}

/** What models.list answers by default: chat models, and an embedding model that does not generate content. */
export const fakeGeminiModels = [
  { name: "models/gemini-2.5-flash", supportedGenerationMethods: ["generateContent", "countTokens", "createCachedContent", "batchGenerateContent"] },
  { name: "models/gemini-2.5-pro", supportedGenerationMethods: ["generateContent", "countTokens"] },
  { name: "models/gemini-embedding-001", supportedGenerationMethods: ["embedContent", "countTextTokens", "countTokens"] },
  { name: "models/gemini-2.0-flash", supportedGenerationMethods: ["generateContent", "countTokens"] },
];

/**
 * models.list (https://ai.google.dev/api/models#method:-models.list): GET /v1beta/models, `{models: [Model],
 * nextPageToken}` with `pageSize` (default 50, at most 1000; `modelsPerPage` caps it lower, to exercise
 * paging) and `pageToken`; each Model with its name "models/...", version, displayName, token limits and
 * supportedGenerationMethods.
 */
function modelsPage(url: URL, models: readonly { name: string; supportedGenerationMethods: string[] }[], modelsPerPage: number): Response {
  const pageSize = Math.min(Number(url.searchParams.get("pageSize") ?? 50) || 50, 1000, modelsPerPage);
  const start = Number(url.searchParams.get("pageToken") ?? 0) || 0;
  const page = models.slice(start, start + pageSize).map((model) => ({
    name: model.name,
    version: "001",
    displayName: model.name.slice("models/".length),
    description: "A fake model",
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 65_536,
    supportedGenerationMethods: model.supportedGenerationMethods,
  }));
  return Response.json({ models: page, ...(start + pageSize < models.length ? { nextPageToken: String(start + pageSize) } : {}) });
}

export async function startFakeGeminiUpstream(
  options: { requireApiKey?: string; models?: readonly { name: string; supportedGenerationMethods: string[] }[]; modelsPerPage?: number } = {},
): Promise<FakeGeminiUpstream> {
  const queue: FakeGeminiBehaviour[] = [];
  const requests: FakeGeminiUpstream["requests"] = [];
  const server = startFakeServer({
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const body = await request.json().catch(() => null);
      requests.push({ path: url.pathname, search: url.search, headers: Object.fromEntries(request.headers), body });
      const match = /^\/v1beta\/models\/([^:]+):(generateContent|streamGenerateContent|embedContent|batchEmbedContents|countTokens)$/.exec(url.pathname);
      const error = (status: number, message: string, statusText = googleStatus(status), details?: unknown[]) =>
        Response.json({ error: { code: status, message, status: statusText, ...(details ? { details } : {}) } }, { status });
      const listing = url.pathname === "/v1beta/models" && request.method === "GET";
      if (!match && !listing) return error(404, `Requested entity was not found.`);
      // Google takes the key from x-goog-api-key or from ?key=.
      const key = request.headers.get("x-goog-api-key") ?? url.searchParams.get("key");
      if (options.requireApiKey && key !== options.requireApiKey) {
        // As Google answers a wrong key: 400 INVALID_ARGUMENT with an ErrorInfo whose reason is API_KEY_INVALID.
        return error(400, "API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT", [
          {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            reason: "API_KEY_INVALID",
            domain: "googleapis.com",
            metadata: { service: "generativelanguage.googleapis.com" },
          },
        ]);
      }
      if (listing || !match) {
        const failure = queue[0]?.kind === "error" ? (queue.shift() as FakeGeminiBehaviour & { kind: "error" }) : null;
        if (failure) return error(failure.status, failure.message ?? "Upstream failure", failure.googleStatus);
        return modelsPage(url, options.models ?? fakeGeminiModels, options.modelsPerPage ?? 1000);
      }
      const [, model, method] = match;
      if (method === "countTokens") {
        const contents = body?.generateContentRequest?.contents ?? body?.contents ?? [];
        const words = JSON.stringify(contents.map((content: any) => (content?.parts ?? []).map((part: any) => part?.text ?? "")));
        return Response.json({ totalTokens: (words.match(/\w+/g) ?? []).length, promptTokensDetails: [{ modality: "TEXT", tokenCount: 1 }] });
      }
      if (method === "embedContent") return Response.json({ embedding: { values: vectorOf(body?.content?.parts?.[0]?.text ?? "") } });
      if (method === "batchEmbedContents") {
        return Response.json({
          embeddings: (body?.requests ?? []).map((entry: any) => ({ values: vectorOf(entry?.content?.parts?.[0]?.text ?? "") })),
        });
      }
      const queued = queue.shift() ?? { kind: "text" };
      const behaviour = queued.kind === "json" ? answerForJson(queued.value, body) : queued;
      if (behaviour.kind === "error") return error(behaviour.status, behaviour.message ?? "Upstream failure", behaviour.googleStatus);
      const text = behaviour.kind === "text" ? (behaviour.text ?? "Hello from Gemini, the fake one.") : "";
      const promptTokens = behaviour.kind === "text" ? (behaviour.promptTokens ?? 9) : 20;
      const candidatesTokens = behaviour.kind === "text" ? (behaviour.candidatesTokens ?? 7) : 10;
      const cached = behaviour.kind === "text" ? (behaviour.cachedTokens ?? 0) : 0;
      const usageMetadata = {
        promptTokenCount: promptTokens,
        candidatesTokenCount: candidatesTokens,
        totalTokenCount: promptTokens + candidatesTokens,
        ...(cached ? { cachedContentTokenCount: cached } : {}),
        promptTokensDetails: [{ modality: "TEXT", tokenCount: promptTokens }],
      };
      const candidate = (parts: unknown[], finishReason?: string) => ({
        content: { parts, role: "model" },
        ...(finishReason ? { finishReason } : {}),
        index: 0,
      });
      const finalParts = behaviour.kind === "function" ? [{ functionCall: { name: behaviour.name, args: behaviour.args } }] : [{ text }];
      if (method === "generateContent") {
        return Response.json({ candidates: [candidate(finalParts, "STOP")], usageMetadata, modelVersion: model, responseId: "fake-response-id" });
      }
      const chunks: unknown[] = [];
      if (behaviour.kind === "function") {
        chunks.push({ candidates: [candidate(finalParts, "STOP")], usageMetadata, modelVersion: model });
      } else {
        const pieces = text.match(/\S+\s*/g) ?? [text];
        pieces.forEach((piece, index) => {
          const last = index === pieces.length - 1;
          chunks.push({
            candidates: [candidate([{ text: piece }], last ? "STOP" : undefined)],
            usageMetadata: last ? usageMetadata : { promptTokenCount: promptTokens, totalTokenCount: promptTokens },
            modelVersion: model,
          });
        });
      }
      return framesResponse(
        chunks.map((chunk) => encoder.encode(`data: ${JSON.stringify(chunk)}\r\n\r\n`)),
        "text/event-stream",
      );
    },
  });
  return {
    url: server.origin,
    requests,
    enqueue: (behaviour) => queue.push(behaviour),
    close: () => server.close(),
  };
}
