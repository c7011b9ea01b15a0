import { budgetHeaders } from "../accounting/budget-headers";
import { authenticate, type Caller } from "../auth/authenticate";
import { deleteStoredResponse, findStoredResponse, type PendingResponseSaves } from "../codecs/responses/stored-response-store";
import { storedResponsesQuery } from "../codecs/responses/stored-responses-query";
import { clipClientValue, errors, GatewayError } from "../errors";
import type { GatewayServices } from "../gateway-services";

/** One call on /v1/responses/{id}: who asks (checked first, as every /v1 call), for which stored response. */
export interface StoredResponseCall {
  services: GatewayServices;
  saves: PendingResponseSaves;
  request: Request;
  clientAddress: string | null;
  /** The id as it came in the path. */
  encodedId: string;
}

function responseNotFound(id: string): GatewayError {
  return new GatewayError(`Response with id '${clipClientValue(id)}' not found.`, { status: 404, type: "invalid_request_error", code: null });
}

/** The caller and the decoded id, once an insert of that id still running has landed. */
async function resolve(call: StoredResponseCall): Promise<{ caller: Caller; id: string }> {
  const caller = await authenticate(call.services, call.request, call.clientAddress);
  let id: string;
  try {
    id = decodeURIComponent(call.encodedId);
  } catch {
    throw errors.invalidIdentifier("response_id", "is not valid percent-encoding", call.encodedId);
  }
  await call.saves.settled(id);
  return { caller, id };
}

async function findOwn(call: StoredResponseCall) {
  const { caller, id } = await resolve(call);
  const { services } = call;
  const stored = await storedResponsesQuery(services, () => findStoredResponse(services.database.db, id, caller.token.id));
  if (!stored) throw responseNotFound(id);
  return { stored, headers: budgetHeaders(services.ledger, caller.token, caller.user) };
}

/** GET /v1/responses/{id}: the stored Response, for the token that created it only (404 for any other). */
export async function handleRetrieveResponse(call: StoredResponseCall): Promise<Response> {
  const { stored, headers } = await findOwn(call);
  return Response.json(stored.response, { headers });
}

/** GET /v1/responses/{id}/input_items: the items the model read (earlier turns included), oldest first. */
export async function handleListInputItems(call: StoredResponseCall): Promise<Response> {
  const { stored, headers } = await findOwn(call);
  const data = (stored.inputItems as unknown[]).map((item, index) =>
    item && typeof item === "object" && "id" in item ? item : { id: `item_${index}`, ...(item as object) },
  );
  const ids = data.map((item) => (item as { id: string }).id);
  return Response.json({ object: "list", data, first_id: ids[0] ?? null, last_id: ids.at(-1) ?? null, has_more: false }, { headers });
}

/** DELETE /v1/responses/{id}: the gateway's stored copy, for the token that created it only. */
export async function handleDeleteResponse(call: StoredResponseCall): Promise<Response> {
  const { caller, id } = await resolve(call);
  const { services } = call;
  const deleted = await storedResponsesQuery(services, () => deleteStoredResponse(services.database.db, id, caller.token.id));
  if (!deleted) throw responseNotFound(id);
  return Response.json({ id, object: "response", deleted: true }, { headers: budgetHeaders(services.ledger, caller.token, caller.user) });
}
