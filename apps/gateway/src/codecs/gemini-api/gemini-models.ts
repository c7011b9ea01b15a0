import { errors } from "../../errors";
import type { EndpointCall } from "../../pipeline/endpoint";
import { checkModelName } from "../../validate-identifiers";

/** What a Gemini-API client may call on any model the gateway serves (it routes each to a channel that can). */
const SUPPORTED_METHODS = ["generateContent", "streamGenerateContent", "countTokens", "embedContent", "batchEmbedContents"];

/** A call from one of Google's clients: its key in Google's header or query, or its x-goog-api-client header. */
export function wantsGoogleShape(request: Request): boolean {
  if (request.headers.has("anthropic-version")) return false;
  return request.headers.has("x-goog-api-key") || request.headers.has("x-goog-api-client") || /[?&]key=/.test(request.url);
}

/** Google's Model resource (https://ai.google.dev/api/models#Model) for a model the gateway serves. */
export function googleModelOf(id: string): Record<string, unknown> {
  return { name: `models/${id}`, baseModelId: id, version: "001", displayName: id, supportedGenerationMethods: SUPPORTED_METHODS };
}

/** `pageSize` (default 50, at most 1000, as Google caps it). */
function pageSizeOf(value: string | null): number {
  if (value === null || value === "") return 50;
  const size = Number(value);
  if (!Number.isInteger(size) || size < 0) throw errors.invalidParameter("pageSize", "'pageSize' must be a non-negative integer.");
  return size === 0 ? 50 : Math.min(size, 1000);
}

/**
 * GET /v1beta/models (and GET /v1/models from Google's clients): the models the key may call, in Google's
 * list shape, paged by `pageSize` and `pageToken` (the next page's offset, as `nextPageToken` gave it).
 */
export function googleModelList(ids: readonly string[], url: URL): Record<string, unknown> {
  const pageSize = pageSizeOf(url.searchParams.get("pageSize"));
  const token = url.searchParams.get("pageToken");
  const start = token ? Number(token) : 0;
  if (!Number.isInteger(start) || start < 0) throw errors.invalidParameter("pageToken", "'pageToken' is not one this list gave.");
  const end = start + pageSize;
  return { models: ids.slice(start, end).map(googleModelOf), ...(end < ids.length ? { nextPageToken: String(end) } : {}) };
}

/** The model id of GET .../models/{model}, percent-decoded and without Google's `models/` prefix. */
export function modelIdOf(encoded: string): string {
  let id: string;
  try {
    id = decodeURIComponent(encoded);
  } catch {
    throw errors.invalidIdentifier("model", "is not valid percent-encoding", encoded);
  }
  id = id.startsWith("models/") ? id.slice("models/".length) : id;
  checkModelName(id);
  return id;
}

/** Handlers for GET /v1beta/models and /v1beta/models/{model}, given the list of models a call may use. */
export function geminiModelHandlers(listModelIds: (call: EndpointCall) => Promise<string[]>) {
  return {
    async list(call: EndpointCall): Promise<Response> {
      return Response.json(googleModelList(await listModelIds(call), new URL(call.request.url)), { headers: call.record.answerHeaders() });
    },
    async retrieve(call: EndpointCall): Promise<Response> {
      const ids = await listModelIds(call);
      const model = modelIdOf(call.params.model ?? "");
      call.record.modelAsked(model);
      if (!ids.includes(model)) throw errors.modelNotFound(model);
      return Response.json(googleModelOf(model), { headers: call.record.answerHeaders() });
    },
  };
}
