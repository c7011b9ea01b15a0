import { authenticate } from "../auth/authenticate";
import { clipClientValue, errors, GatewayError } from "../errors";
import type { GatewayServices } from "../gateway-services";
import { storedResponsesQuery } from "../codecs/responses/stored-responses-query";
import { deleteStoredResponse, findStoredResponse, type PendingResponseSaves } from "../codecs/responses/stored-response-store";

function responseNotFound(id: string): GatewayError {
  return new GatewayError(`Response with id '${clipClientValue(id)}' not found.`, { status: 404, type: "invalid_request_error", code: null });
}

function decodeResponseId(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw errors.invalidIdentifier("response_id", "is not valid percent-encoding", encoded);
  }
}

/** GET /v1/responses/{id}: the stored Response, for the token that created it only (404 for any other). */
export async function handleRetrieveResponse(services: GatewayServices, request: Request, clientAddress: string | null, encodedId: string, saves: PendingResponseSaves) {
  const caller = await authenticate(services, request, clientAddress);
  const id = decodeResponseId(encodedId);
  await saves.settled(id);
  const stored = await storedResponsesQuery(services, () => findStoredResponse(services.database.db, id, caller.token.id));
  if (!stored) throw responseNotFound(id);
  return Response.json(stored.response);
}

/** GET /v1/responses/{id}/input_items: the items the model read (earlier turns included), oldest first. */
export async function handleListInputItems(services: GatewayServices, request: Request, clientAddress: string | null, encodedId: string, saves: PendingResponseSaves) {
  const caller = await authenticate(services, request, clientAddress);
  const id = decodeResponseId(encodedId);
  await saves.settled(id);
  const stored = await storedResponsesQuery(services, () => findStoredResponse(services.database.db, id, caller.token.id));
  if (!stored) throw responseNotFound(id);
  const data = (stored.inputItems as unknown[]).map((item, index) =>
    item && typeof item === "object" && "id" in item ? item : { id: `item_${index}`, ...(item as object) },
  );
  const ids = data.map((item) => (item as { id: string }).id);
  return Response.json({ object: "list", data, first_id: ids[0] ?? null, last_id: ids.at(-1) ?? null, has_more: false });
}

/** DELETE /v1/responses/{id}: the gateway's stored copy, for the token that created it only. */
export async function handleDeleteResponse(services: GatewayServices, request: Request, clientAddress: string | null, encodedId: string, saves: PendingResponseSaves) {
  const caller = await authenticate(services, request, clientAddress);
  const id = decodeResponseId(encodedId);
  await saves.settled(id);
  if (!(await storedResponsesQuery(services, () => deleteStoredResponse(services.database.db, id, caller.token.id)))) throw responseNotFound(id);
  return Response.json({ id, object: "response", deleted: true });
}
