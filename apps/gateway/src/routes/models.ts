import { addBudgetHeaders } from "../accounting/budget-headers";
import { type AuthenticationServices, authenticate } from "../auth/authenticate";
import { anthropicErrorResponse } from "../codecs/anthropic-messages/anthropic-error";
import { errors, GatewayError } from "../errors";
import type { GatewayServices } from "../gateway-services";
import { modelRefusedBy } from "../policy/model-allowed";
import { checkModelName } from "../validate-identifiers";

/** What listing models reads: the caller (authenticated), its budget, the catalog. */
type ModelListServices = AuthenticationServices & Pick<GatewayServices, "ledger" | "catalog">;

interface ModelEntry {
  id: string;
  object: "model";
  created: number;
  owned_by: string;
}

/**
 * The models a token may call: served by an enabled channel of its group, minus its own and its owner's restriction. Puts
 * the token's budget headers into `headers`, as every /v1 answer of a token with a budget carries them.
 */
async function listModelsFor(services: ModelListServices, request: Request, clientAddress: string | null, headers: Record<string, string>): Promise<ModelEntry[]> {
  const caller = await authenticate(services, request, clientAddress);
  addBudgetHeaders(headers, services.ledger, caller.token, caller.user);
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
        ownedBy = channel.type === "openai-compatible" ? "tollgate" : channel.type;
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

export async function handleListModels(services: ModelListServices, request: Request, clientAddress: string | null): Promise<Response> {
  if (wantsAnthropicShape(request)) return inAnthropicErrors(() => listInAnthropicShape(services, request, clientAddress));
  const headers: Record<string, string> = {};
  const data = await listModelsFor(services, request, clientAddress, headers);
  return Response.json({ object: "list", data }, { headers });
}

/** A call that carries anthropic-version (@anthropic-ai/sdk, Claude Code) gets Anthropic's shapes and errors. */
function wantsAnthropicShape(request: Request): boolean {
  return request.headers.has("anthropic-version");
}

async function inAnthropicErrors(produce: () => Promise<Response>): Promise<Response> {
  try {
    return await produce();
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    return anthropicErrorResponse(error.status, error.message, error.headers);
  }
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
async function listInAnthropicShape(services: ModelListServices, request: Request, clientAddress: string | null): Promise<Response> {
  const headers: Record<string, string> = {};
  const entries = await listModelsFor(services, request, clientAddress, headers);
  const query = new URL(request.url).searchParams;
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
  return Response.json({ data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null }, { headers });
}

/** The model id of GET /v1/models/{id}, percent-decoded; malformed encoding (`%E0%A4%A`) is the client's error. */
function decodeModelId(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw errors.invalidIdentifier("model", "is not valid percent-encoding", encoded);
  }
}

/** GET /v1/models/{id}: the key is checked first, then the id (decoded, bounded), then looked up. */
export async function handleRetrieveModel(
  services: ModelListServices,
  request: Request,
  clientAddress: string | null,
  encodedModel: string,
): Promise<Response> {
  const retrieve = async () => {
    const headers: Record<string, string> = {};
    const data = await listModelsFor(services, request, clientAddress, headers);
    try {
      const model = decodeModelId(encodedModel);
      checkModelName(model);
      const entry = data.find((candidate) => candidate.id === model);
      if (!entry) throw errors.modelNotFound(model);
      return Response.json(wantsAnthropicShape(request) ? anthropicModelOf(entry) : entry, { headers });
    } catch (error) {
      // The key was good: a refused id is an answer to the token too, with its budget headers.
      if (!(error instanceof GatewayError)) throw error;
      throw new GatewayError(error.message, { status: error.status, code: error.code, type: error.type, param: error.param, headers: { ...error.headers, ...headers } });
    }
  };
  return wantsAnthropicShape(request) ? inAnthropicErrors(retrieve) : retrieve();
}
