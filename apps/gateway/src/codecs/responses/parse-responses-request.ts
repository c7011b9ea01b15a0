import { isRecord } from "@tollgate/shared";
import { requestedBuiltInTools } from "../../accounting/built-in-tools";
import { TranslationError } from "@tollgate/upstream";
import { clipClientValue, errors, GatewayError } from "../../errors";
import type { GatewayServices } from "../../gateway-services";
import type { Admission } from "../../pipeline/admit";
import type { ParsedCall } from "../../pipeline/codec";
import type { ChatRequest } from "../openai-chat/prepare-chat-attempt";
import { inputItemsOf } from "./responses-input-to-messages";
import { responsesRequestToChat } from "./responses-request-to-chat";
import { findStoredResponse, type PendingResponseSaves } from "./stored-response-store";
import { storedResponsesQuery } from "./stored-responses-query";

/** The earlier response a follow-up continues (previous_response_id), as stored. */
export interface PreviousResponse {
  id: string;
  native: boolean;
  channelId: number;
}

/** A POST /v1/responses request, parsed: what every channel type is served from. */
export interface ResponsesRequest {
  /** The client's body and its text, relayed to channels that speak the Responses API. */
  body: Record<string, unknown>;
  text: string;
  model: string;
  stream: boolean;
  store: boolean;
  tokenId: number;
  userId: number;
  /** This request's input as items (a string input is one user message). */
  inputItems: unknown[];
  /** Earlier turns (input and output items) replayed from previous_response_id; [] without one. */
  history: unknown[];
  previous: PreviousResponse | null;
  /** The request in chat-completions form, for every channel that does not speak the Responses API. */
  chat: ChatRequest | null;
  /** Why it has no chat form (answered 400 by a channel that would need one). */
  chatError: GatewayError | null;
  retentionDays: number;
}

function previousNotFound(id: string): GatewayError {
  return new GatewayError(`Previous response with id '${clipClientValue(id)}' not found.`, {
    status: 404,
    type: "invalid_request_error",
    code: "previous_response_not_found",
    param: "previous_response_id",
  });
}

function validate(body: Record<string, unknown>): void {
  if (body.input === undefined || body.input === null) throw errors.missingParameter("input");
  const max = body.max_output_tokens;
  if (max !== undefined && max !== null && (typeof max !== "number" || !Number.isInteger(max) || max < 1)) {
    throw errors.invalidParameter("max_output_tokens", "'max_output_tokens' must be a positive integer.");
  }
  for (const flag of ["store", "stream", "parallel_tool_calls"] as const) {
    if (body[flag] !== undefined && body[flag] !== null && typeof body[flag] !== "boolean") {
      throw errors.invalidParameter(flag, `'${flag}' must be a boolean.`);
    }
  }
  if (body.instructions !== undefined && body.instructions !== null && typeof body.instructions !== "string") {
    throw errors.invalidParameter("instructions", "'instructions' must be a string.");
  }
  if (body.previous_response_id !== undefined && body.previous_response_id !== null && typeof body.previous_response_id !== "string") {
    throw errors.invalidParameter("previous_response_id", "'previous_response_id' must be a string.");
  }
}

/**
 * The Responses request's own fields (400 for what is malformed), the earlier turns of previous_response_id
 * (404 when the id is unknown, expired or another token's), and its chat form when it has one.
 */
export async function parseResponsesRequest(
  admission: Admission,
  services: GatewayServices,
  saves: PendingResponseSaves,
): Promise<ParsedCall<ResponsesRequest>> {
  const { body: json, model, caller } = admission;
  const body = json.value;
  validate(body);
  let inputItems: unknown[];
  try {
    inputItems = inputItemsOf(body.input);
  } catch (error) {
    if (error instanceof TranslationError) throw errors.untranslatable(error);
    throw error;
  }
  let history: unknown[] = [];
  let previous: PreviousResponse | null = null;
  if (typeof body.previous_response_id === "string") {
    await saves.settled(body.previous_response_id);
    const previousId = body.previous_response_id;
    const stored = await storedResponsesQuery(services, () => findStoredResponse(services.database.db, previousId, caller.token.id));
    if (!stored) throw previousNotFound(body.previous_response_id);
    const output = isRecord(stored.response) && Array.isArray(stored.response.output) ? stored.response.output : [];
    history = [...(stored.inputItems as unknown[]), ...output];
    previous = { id: stored.id, native: stored.native, channelId: stored.channelId };
  }
  const stream = body.stream === true;
  let chat: ChatRequest | null = null;
  let chatError: GatewayError | null = null;
  try {
    const chatBody = responsesRequestToChat(body, history, inputItems);
    chat = { body: chatBody, model, stream, clientWantsUsage: false, path: "/chat/completions" };
  } catch (error) {
    if (!(error instanceof TranslationError)) throw error;
    chatError = errors.untranslatable(error);
  }
  const settingsResult = services.settings.get();
  const settings = settingsResult instanceof Promise ? await settingsResult : settingsResult;
  const historyBytes = history.length > 0 ? Buffer.byteLength(JSON.stringify(history)) : 0;
  return {
    request: {
      body,
      text: json.text,
      model,
      stream,
      store: body.store !== false,
      tokenId: caller.token.id,
      userId: caller.user.id,
      inputItems,
      history,
      previous,
      chat,
      chatError,
      retentionDays: settings.responsesRetentionDays,
    },
    // None named: the pipeline holds the model's own default, as for every endpoint.
    maxOutputTokens: typeof body.max_output_tokens === "number" ? body.max_output_tokens : null,
    stream,
    builtInTools: requestedBuiltInTools(body.tools, (index) => `tools[${index}].type`),
    reservationBody: chat ? { value: chat.body, bytes: json.bytes + historyBytes } : undefined,
  };
}
