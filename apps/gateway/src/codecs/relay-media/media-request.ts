import {
  buildMediaRequest,
  type MediaBody,
  type MediaOperation,
  type ProviderAdapter,
  servesMediaOperation,
  upstreamModelFor,
} from "@tollgate/upstream";
import type { TokenUsage } from "@tollgate/shared";
import { errors } from "../../errors";
import type { Admission } from "../../pipeline/admit";
import type { ParsedCall, WholeAnswer } from "../../pipeline/codec";
import type { RoutableChannel } from "../../routing/channel-catalog";
import type { UpstreamAttempt } from "../../routing/forward-with-failover";

/** A request relayed as it came to channels that serve it natively (images, audio, moderations, rerank). */
export interface MediaRequest {
  operation: MediaOperation;
  model: string;
  /** The JSON body, or a multipart upload's text fields. */
  body: Record<string, unknown>;
  /** The JSON body as the client sent it (relayed as is when the model keeps its name). */
  text: string;
  /** The multipart upload, parsed (for a renamed model). */
  form?: FormData;
  /** The multipart upload as it came, relayed byte for byte when the model keeps its name. */
  upload?: { bytes: Uint8Array<ArrayBuffer>; contentType: string };
}

export function mediaRequest(operation: MediaOperation, admission: Admission): MediaRequest {
  const { body, model, form, upload } = admission;
  return { operation, model, body: body.value, text: body.text, form, upload };
}

/**
 * The form with its `model` part renamed to the channel's upstream model, every other part as it came
 * (re-serialised, so a file part's content type may be normalised by the runtime, e.g. audio/x-wav).
 */
function renamedForm(form: FormData, upstreamModel: string): FormData {
  const copy = new FormData();
  for (const [name, part] of form.entries()) {
    if (name === "model") copy.append(name, upstreamModel);
    else copy.append(name, part);
  }
  return copy;
}

/** The upstream request for one channel; the body is rewritten only when the channel maps the model to another name. */
export function prepareMediaAttempt(channel: RoutableChannel, adapter: ProviderAdapter, media: MediaRequest): UpstreamAttempt<null> {
  const upstreamModel = upstreamModelFor(channel, media.model);
  // A body that named no model (moderations' default) is sent with the one it was routed to.
  const renamed = upstreamModel !== media.model || media.body.model !== media.model;
  let body: MediaBody;
  if (media.form && media.upload) body = renamed ? renamedForm(media.form, upstreamModel) : media.upload;
  else body = renamed ? JSON.stringify({ ...media.body, model: upstreamModel }) : media.text;
  return { request: buildMediaRequest(adapter.type, channel, upstreamModel, media.operation, body), upstreamModel, translation: null };
}

/** Channels whose type serves the operation (see servesMediaOperation); the others are skipped in routing. */
export function servesOperation(operation: MediaOperation): (channel: RoutableChannel) => boolean {
  return (channel) => servesMediaOperation(channel.adapter.type, operation);
}

/** `body[name]`; absent, null or "" is OpenAI's missing_required_parameter (400) naming it. */
export function requiredParameter(body: Record<string, unknown>, name: string): unknown {
  const value = body[name];
  if (value === undefined || value === null || value === "") throw errors.missingParameter(name);
  return value;
}

/** A call billed one request (moderations, rerank): relayed whole, with no output tokens to reserve. */
export function perRequestCall(operation: MediaOperation, admission: Admission): ParsedCall<MediaRequest> {
  return { request: mediaRequest(operation, admission), maxOutputTokens: 0, stream: false, worstCaseUnits: { unit: "request" } };
}

/**
 * A per-request call's whole answer, which lists its `results` (moderations, rerank), with the usage
 * `usageOf` reads from it (null: counted locally); null when the answer is not such a list.
 */
export function readResultsAnswer(text: string, usageOf: (json: Record<string, unknown>) => TokenUsage | null): WholeAnswer | null {
  const json = parseJsonAnswer(text);
  if (!json || !Array.isArray(json.results)) return null;
  return { usage: usageOf(json), units: { unit: "request" }, body: text };
}

/** A whole answer's JSON, or null when it is not JSON. */
export function parseJsonAnswer(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
