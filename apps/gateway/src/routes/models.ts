import { authenticate } from "../auth/authenticate";
import { errors } from "../errors";
import type { GatewayServices } from "../gateway-services";

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

export async function handleRetrieveModel(
  services: GatewayServices,
  request: Request,
  clientAddress: string | null,
  model: string,
): Promise<Response> {
  const data = await listModelsFor(services, request, clientAddress);
  const entry = data.find((candidate) => candidate.id === model);
  if (!entry) throw errors.modelNotFound(model);
  return Response.json(entry);
}
