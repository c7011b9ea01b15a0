import type { Caller } from "../../auth/authenticate";
import { deleteStoredResponse, findStoredResponse, type PendingResponseSaves } from "./stored-response-store";
import { storedResponsesQuery } from "./stored-responses-query";
import { clipClientValue, errors, GatewayError } from "../../errors";
import type { EndpointCall } from "../../pipeline/endpoint";

/**
 * One call on /v1/responses/{id}: a caller let in (as every /v1 call), the id as it came in the path
 * (`params.id`), and the inserts still running.
 */
export interface StoredResponseCall extends EndpointCall {
  saves: PendingResponseSaves;
}

/** The 404 of an id the caller has no response under (the wrapper adds the caller's headers). */
function responseNotFound(id: string): GatewayError {
  return new GatewayError(`Response with id '${clipClientValue(id)}' not found.`, { status: 404, type: "invalid_request_error", code: null });
}

/** The caller and the decoded id, once an insert of that id still running has landed. */
async function resolve(call: StoredResponseCall): Promise<{ caller: Caller; id: string }> {
  const encodedId = call.params.id ?? "";
  let id: string;
  try {
    id = decodeURIComponent(encodedId);
  } catch {
    throw errors.invalidIdentifier("response_id", "is not valid percent-encoding", encodedId);
  }
  await call.saves.settled(id);
  return { caller: call.caller, id };
}

async function findOwn(call: StoredResponseCall) {
  const { caller, id } = await resolve(call);
  const { services } = call;
  const stored = await storedResponsesQuery(services, () => findStoredResponse(services.database.db, id, caller.token.id));
  if (!stored) throw responseNotFound(id);
  return { stored, headers: call.record.answerHeaders() };
}

/** GET /v1/responses/{id}: the stored Response, for the token that created it only (404 for any other). */
export async function handleRetrieveResponse(call: StoredResponseCall): Promise<Response> {
  const { stored, headers } = await findOwn(call);
  return Response.json(stored.response, { headers });
}

/**
 * An input item as OpenAI lists it: an id of its own (stable: from its place in the conversation), and a
 * message's string content as the one text part it stands for (input_text, or output_text for the
 * assistant's turns replayed from earlier responses).
 */
export function listedInputItem(item: unknown, index: number): Record<string, unknown> {
  const record = item && typeof item === "object" ? (item as Record<string, unknown>) : { type: "message", role: "user", content: String(item) };
  const listed: Record<string, unknown> = typeof record.id === "string" ? { ...record } : { id: `item_${index}`, ...record };
  const isMessage = listed.type === "message" || (listed.type === undefined && typeof listed.role === "string");
  if (isMessage) {
    listed.type = "message";
    if (typeof listed.content === "string") {
      listed.content = [{ type: listed.role === "assistant" ? "output_text" : "input_text", text: listed.content }];
    }
  }
  return listed;
}

/** limit (1-100, default 20), order (asc|desc, default desc), after/before (item ids), as OpenAI's list calls take them. */
function listParameters(url: URL) {
  const limitText = url.searchParams.get("limit");
  const limit = limitText === null ? 20 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw errors.invalidParameter("limit", "limit must be an integer from 1 to 100.");
  }
  const order = url.searchParams.get("order") ?? "desc";
  if (order !== "asc" && order !== "desc") throw errors.invalidParameter("order", "order must be 'asc' or 'desc'.");
  return { limit, order, after: url.searchParams.get("after"), before: url.searchParams.get("before") };
}

/**
 * GET /v1/responses/{id}/input_items: the items the model read (earlier turns included), newest first by
 * default, paged as OpenAI pages lists (`has_more`, `first_id`, `last_id`, cursors `after` and `before`).
 */
export async function handleListInputItems(call: StoredResponseCall): Promise<Response> {
  const { limit, order, after, before } = listParameters(new URL(call.request.url));
  const { stored, headers } = await findOwn(call);
  const items = (stored.inputItems as unknown[]).map(listedInputItem);
  if (order === "desc") items.reverse();
  let start = 0;
  let end = items.length;
  if (after !== null) {
    const index = items.findIndex((item) => item.id === after);
    if (index === -1) throw errors.invalidParameter("after", `No input item with id '${clipClientValue(after)}' in this response.`);
    start = index + 1;
  }
  if (before !== null) {
    const index = items.findIndex((item) => item.id === before);
    if (index === -1) throw errors.invalidParameter("before", `No input item with id '${clipClientValue(before)}' in this response.`);
    end = index;
  }
  // With only `before`, the page is the items just before it (the previous page), in the list's order.
  const window = items.slice(start, Math.max(start, end));
  const data = after === null && before !== null ? window.slice(-limit) : window.slice(0, limit);
  const hasMore = window.length > data.length;
  return Response.json({ object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: hasMore }, { headers });
}

/** DELETE /v1/responses/{id}: the gateway's stored copy, for the token that created it only. */
export async function handleDeleteResponse(call: StoredResponseCall): Promise<Response> {
  const { caller, id } = await resolve(call);
  const { services } = call;
  const deleted = await storedResponsesQuery(services, () => deleteStoredResponse(services.database.db, id, caller.token.id));
  if (!deleted) throw responseNotFound(id);
  return Response.json({ id, object: "response", deleted: true }, { headers: call.record.answerHeaders() });
}
