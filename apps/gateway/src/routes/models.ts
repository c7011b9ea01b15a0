import { authenticate } from "../auth/authenticate";
import { errors } from "../errors";
import type { GatewayServices } from "../gateway-services";
import { checkModelName } from "../validate-identifiers";

interface ModelEntry {
  id: string;
  object: "model";
  created: number;
  owned_by: string;
}

/** The models a token may call: served by an enabled channel of its group, minus its own restriction. */
async function listModelsFor(services: GatewayServices, request: Request, clientAddress: string | null): Promise<ModelEntry[]> {
  const caller = await authenticate(services, request, clientAddress);
  const catalogResult = services.catalog.get();
  const catalog = catalogResult instanceof Promise ? await catalogResult : catalogResult;
  const entries: ModelEntry[] = [];
  for (const [model, listed] of catalog.channelsByModel) {
    if (caller.token.allowedModels && !caller.token.allowedModels.has(model)) continue;
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

export async function handleListModels(services: GatewayServices, request: Request, clientAddress: string | null): Promise<Response> {
  const data = await listModelsFor(services, request, clientAddress);
  return Response.json({ object: "list", data });
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
  services: GatewayServices,
  request: Request,
  clientAddress: string | null,
  encodedModel: string,
): Promise<Response> {
  const data = await listModelsFor(services, request, clientAddress);
  const model = decodeModelId(encodedModel);
  checkModelName(model);
  const entry = data.find((candidate) => candidate.id === model);
  if (!entry) throw errors.modelNotFound(model);
  return Response.json(entry);
}
