import type { ProviderAdapter } from "@tollgate/upstream";
import { GatewayError } from "../errors";
import type { GatewayServices } from "../gateway-services";
import type { RoutableChannel } from "../routing/channel-catalog";
import { forwardWithFailover, type ForwardedResponse } from "../routing/forward-with-failover";
import type { Admission } from "./admit";
import type { CallRecord } from "./call-record";
import type { Codec, ParsedCall, WholeAnswer } from "./codec";
import { ContextWindowExceeded, route } from "./route";

/**
 * Whether another model may cure a failure: every channel of the model failed (a timeout, a connection, a
 * redirect, an answer its adapter called retryable or the channel's fault: 429 and 5xx, 502 for a refused
 * key). A 400 (the caller's request, a channel type's gap) and the gateway's own 500 never are.
 */
function isUpstreamFailure(error: unknown): error is GatewayError {
  return error instanceof GatewayError && (error.status === 429 || error.status >= 500) && error.code !== "internal_error";
}

/**
 * Routes the call to `admission.model` and forwards it, as the exchange always has. A failure that a
 * fallback model may cure comes back as the error instead of being thrown (model-fallback.ts decides):
 * no channel of the model available (503), every channel failed, or (with `checkContextWindow`) the prompt
 * estimated past the model's context window. Everything else is thrown as before.
 */
export async function serveModel<Parsed, Translation, Answer extends WholeAnswer>(
  services: GatewayServices,
  record: CallRecord,
  request: Request,
  codec: Codec<Parsed, Translation, Answer>,
  admission: Admission,
  parsed: ParsedCall<Parsed>,
  worstCaseCompletionTokens: number,
  checkContextWindow: boolean,
): Promise<ForwardedResponse<Translation> | GatewayError | ContextWindowExceeded> {
  let routed: RoutableChannel[];
  try {
    routed = await route(services, record, admission, worstCaseCompletionTokens, parsed.worstCaseUnits, parsed.builtInTools, codec.serves, !codec.notBilled, checkContextWindow);
  } catch (error) {
    if (error instanceof ContextWindowExceeded || (error instanceof GatewayError && error.code === "no_available_channel")) return error;
    throw error;
  }
  const candidates = codec.orderChannels ? codec.orderChannels(parsed.request, routed) : routed;
  const prepare = (channel: RoutableChannel, adapter: ProviderAdapter) => codec.prepare(channel, adapter, parsed.request);
  try {
    return await forwardWithFailover(services, record, candidates, request.signal, prepare);
  } catch (error) {
    if (!request.signal.aborted && isUpstreamFailure(error)) return error;
    throw error;
  }
}
