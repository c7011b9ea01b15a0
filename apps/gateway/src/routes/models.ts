import { anthropicErrorResponse } from "../codecs/anthropic-messages/anthropic-error";
import { errorResponse, errors, type GatewayError } from "../errors";
import type { EndpointCall } from "../pipeline/endpoint";
import { modelRefusedBy } from "../policy/model-allowed";
import { checkModelName } from "../validate-identifiers";
import { geminiErrorResponse } from "../codecs/gemini-api/gemini-error";
import { geminiModelHandlers, googleModelList, wantsGoogleShape } from "../codecs/gemini-api/gemini-models";

interface ModelEntry {
  id: string;
  object: "model";
  created: number;
  owned_by: string;
}

/** The models a token may call: served by an enabled channel of its group, minus its own and its owner's restriction. */
async function listModelsFor({ services, caller }: EndpointCall): Promise<ModelEntry[]> {
  const catalogResult = services.catalog.get();
  const catalog = catalogResult instanceof Promise ? await catalogResult : catalogResult;
  const entries: ModelEntry[] = [];
  for (const [model, listed] of catalog.channelsByModel) {
    if (modelRefusedBy(caller, model) !== null) continue;
    let created = Number.POSITIVE_INFINITY;
    let ownedBy: string | null = null;
    for (const channel of listed) {
      if (!channel.enabled || !channel.groups.has(caller.group)) continue;
      if (channel.createdAt < created) {
        created = channel.createdAt;
        ownedBy = channel.adapter.ownedBy ?? channel.type;
      }
    }
    if (ownedBy === null) continue;
    entries.push({
      id: model,
      object: "model",
      created: Math.floor(created / 1000),
      owned_by: catalog.prices.get(model)?.ownedBy ?? ownedBy,
    });
  }
  return entries.sort((a, b) => a.id.localeCompare(b.id));
}

/** The ids of the models a call may use, sorted. */
async function modelIdsFor(call: EndpointCall): Promise<string[]> {
  return (await listModelsFor(call)).map((entry) => entry.id);
}

/** GET /v1beta/models and /v1beta/models/{model}, in Google's shapes. */
export const geminiModels = geminiModelHandlers(modelIdsFor);

/**
 * GET /v1/models: OpenAI's list; Anthropic's paged list for a call that carries anthropic-version; Google's
 * for a call from Google's clients (which send their v1 calls here: @google/genai's default API version).
 */
export async function handleListModels(call: EndpointCall): Promise<Response> {
  if (wantsAnthropicShape(call.request)) return listInAnthropicShape(call);
  if (wantsGoogleShape(call.request)) return Response.json(googleModelList(await modelIdsFor(call), new URL(call.request.url)), { headers: call.record.answerHeaders() });
  const data = await listModelsFor(call);
  return Response.json({ object: "list", data }, { headers: call.record.answerHeaders() });
}

/** A call that carries anthropic-version (@anthropic-ai/sdk, Claude Code) gets Anthropic's shapes and errors. */
function wantsAnthropicShape(request: Request): boolean {
  return request.headers.has("anthropic-version");
}

/** An error on /v1/models in the shape the client reads: Anthropic's when it sent anthropic-version, Google's from Google's clients, OpenAI's otherwise. */
export function modelsErrorResponse(error: GatewayError, headers: Record<string, string>, request: Request): Response {
  if (wantsAnthropicShape(request)) return anthropicErrorResponse(error.status, error.message, { ...error.headers, ...headers });
  if (wantsGoogleShape(request)) return geminiErrorResponse(error, headers);
  return errorResponse(error, headers);
}

/** Anthropic's ModelInfo (https://docs.anthropic.com/en/api/models): the id stands in for a display name. */
function anthropicModelOf(entry: ModelEntry) {
  return { type: "model", id: entry.id, display_name: entry.id, created_at: new Date(entry.created * 1000).toISOString() };
}

/** Anthropic's `limit` (1 to 1000, default 20). */
function limitOf(value: string | null): number {
  if (value === null) return 20;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw errors.invalidParameter("limit", "limit: Input should be an integer between 1 and 1000");
  return limit;
}

/**
 * GET /v1/models in Anthropic's list shape, paged the way Anthropic pages it: `after_id` for the page after
 * an id, `before_id` for the page before one, `has_more`, `first_id` and `last_id`.
 */
async function listInAnthropicShape(call: EndpointCall): Promise<Response> {
  const entries = await listModelsFor(call);
  const query = new URL(call.request.url).searchParams;
  const limit = limitOf(query.get("limit"));
  const afterId = query.get("after_id");
  const beforeId = query.get("before_id");
  let start = 0;
  let end = entries.length;
  if (afterId !== null) start = entries.findIndex((entry) => entry.id === afterId) + 1;
  if (beforeId !== null) {
    const index = entries.findIndex((entry) => entry.id === beforeId);
    end = index === -1 ? entries.length : index;
  }
  if ((afterId !== null && start === 0) || start > end) start = end;
  const page = beforeId !== null && afterId === null ? entries.slice(Math.max(start, end - limit), end) : entries.slice(start, start + limit);
  const hasMore = beforeId !== null && afterId === null ? end - limit > start : start + limit < end;
  const data = page.map(anthropicModelOf);
  return Response.json({ data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null }, { headers: call.record.answerHeaders() });
}

/** The model id of GET /v1/models/{id}, percent-decoded; malformed encoding (`%E0%A4%A`) is the client's error. */
function decodeModelId(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw errors.invalidIdentifier("model", "is not valid percent-encoding", encoded);
  }
}

/** GET /v1/models/{id}: the key is checked first (by the wrapper), then the id (decoded, bounded), then looked up. */
export async function handleRetrieveModel(call: EndpointCall): Promise<Response> {
  if (wantsGoogleShape(call.request)) return geminiModels.retrieve({ ...call, params: { model: call.params.id ?? "" } });
  const data = await listModelsFor(call);
  const model = decodeModelId(call.params.id ?? "");
  checkModelName(model);
  call.record.modelAsked(model);
  const entry = data.find((candidate) => candidate.id === model);
  if (!entry) throw errors.modelNotFound(model);
  return Response.json(wantsAnthropicShape(call.request) ? anthropicModelOf(entry) : entry, { headers: call.record.answerHeaders() });
}
