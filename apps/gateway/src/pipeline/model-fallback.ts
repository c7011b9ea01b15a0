import { defaultMaxTokensFor } from "../accounting/default-max-tokens";
import { GatewayError } from "../errors";
import type { GatewayServices } from "../gateway-services";
import { modelRefusedBy } from "../policy/model-allowed";
import type { PricedModel } from "../routing/channel-catalog";
import type { ForwardedResponse } from "../routing/forward-with-failover";
import type { Admission } from "./admit";
import type { CallRecord } from "./call-record";
import type { Codec, ParsedCall, WholeAnswer } from "./codec";
import { ContextWindowExceeded } from "./route";
import { serveModel } from "./serve-model";

/** The most fallback models one call is routed to (after the model asked for), however long the chains. */
export const MAX_FALLBACK_MODELS = 3;
/** The most models a chain is walked through looking for those (models refused by the allow-list included). */
const MAX_CHAIN_MODELS = 16;

/**
 * The models to try after `requested`, in order: its fallback list, then each of those models' own lists
 * after them (breadth first), each model once (a chain A -> B -> A ends at B), at most MAX_CHAIN_MODELS.
 */
export function* fallbackModels(prices: ReadonlyMap<string, Pick<PricedModel, "fallbacks">>, requested: string): Generator<string> {
  const seen = new Set([requested]);
  const queue = [...(prices.get(requested)?.fallbacks ?? [])];
  for (let index = 0; index < queue.length && seen.size <= MAX_CHAIN_MODELS; index++) {
    const model = queue[index]!;
    if (seen.has(model)) continue;
    seen.add(model);
    yield model;
    for (const next of prices.get(model)?.fallbacks ?? []) if (!seen.has(next)) queue.push(next);
  }
}

/** What the exchange continues with: the call as the serving model reads it, and that model's answer. */
export interface ServedCall<Parsed, Translation> {
  parsed: ParsedCall<Parsed>;
  worstCaseCompletionTokens: number;
  forwarded: ForwardedResponse<Translation>;
}

/** The admitted call as if the client had asked for `model`: its body names it (what translators read back). */
function admissionFor(admission: Admission, model: string): Admission {
  const value = { ...admission.body.value, model };
  const text = JSON.stringify(value);
  return { ...admission, model, body: { value, text, bytes: Buffer.byteLength(text) } };
}

/**
 * The call's model could not serve it (`failure`: every channel failed, none available, or the prompt is
 * past its context window): the next model of its fallback chain (fallbackModels) that the key and its
 * owner may use takes it, with its own channels, price and reservation (the previous hold is given back
 * first, so that a call never holds two models' worst cases), re-parsed as a request for that model, so
 * that its answer names it. A model that cannot take the call (not served to the caller's group, no
 * channel that serves the endpoint or the request's built-in tools, past its own context window) is passed
 * over. When no model fits the prompt, the model asked for is sent it after all (its upstream decides);
 * when models failed, the last failure is the answer. A hold the quota cannot cover for a fallback model
 * ends the call with 429, as asking for that model would. Uploads (multipart) are not replayed.
 */
export async function fallBack<Parsed, Translation, Answer extends WholeAnswer>(
  services: GatewayServices,
  record: CallRecord,
  request: Request,
  codec: Codec<Parsed, Translation, Answer>,
  admission: Admission,
  /** The call as parsed for the model asked for, and the admission its reservation is estimated from. */
  asked: Omit<ServedCall<Parsed, Translation>, "forwarded"> & { reserved: Admission },
  failure: GatewayError | ContextWindowExceeded,
): Promise<ServedCall<Parsed, Translation>> {
  let lastFailure = failure instanceof GatewayError ? failure : null;
  if (codec.bodyFormat !== "multipart") {
    const catalogResult = services.catalog.get();
    const catalog = catalogResult instanceof Promise ? await catalogResult : catalogResult;
    let routedTo = 0;
    for (const model of fallbackModels(catalog.prices, admission.model)) {
      if (routedTo >= MAX_FALLBACK_MODELS || request.signal.aborted) break;
      if (modelRefusedBy(admission.caller, model) !== null) continue;
      routedTo++;
      record.releaseHold();
      const next = admissionFor(admission, model);
      const parsedResult = codec.parse(next, services, request);
      const parsed = parsedResult instanceof Promise ? await parsedResult : parsedResult;
      const reserved = parsed.reservationBody ? { ...next, body: { ...next.body, ...parsed.reservationBody } } : next;
      const maxOutputTokens = parsed.maxOutputTokens ?? (await defaultMaxTokensFor(services, model));
      const worstCaseCompletionTokens = parsed.answers === undefined ? maxOutputTokens : maxOutputTokens * parsed.answers;
      let served: ForwardedResponse<Translation> | GatewayError | ContextWindowExceeded;
      try {
        served = await serveModel(services, record, request, codec, reserved, parsed, worstCaseCompletionTokens, true);
      } catch (error) {
        // This model cannot take this call (not in the caller's group, its channels cannot serve it): the next one may.
        if (error instanceof GatewayError && (error.status === 400 || error.status === 404)) continue;
        throw error;
      }
      if (served instanceof ContextWindowExceeded) continue;
      if (!(served instanceof GatewayError)) {
        services.log("info", "a fallback model served the call", { requestId: record.requestId, requested: admission.model, served: model });
        return { parsed, worstCaseCompletionTokens, forwarded: served };
      }
      lastFailure = served;
    }
  }
  if (lastFailure) throw lastFailure;
  // No model of the chain fits the prompt: the model asked for takes it after all (its upstream decides).
  record.releaseHold();
  const served = await serveModel(services, record, request, codec, asked.reserved, asked.parsed, asked.worstCaseCompletionTokens, false);
  if (served instanceof GatewayError || served instanceof ContextWindowExceeded) throw served;
  return { parsed: asked.parsed, worstCaseCompletionTokens: asked.worstCaseCompletionTokens, forwarded: served };
}
