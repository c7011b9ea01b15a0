import { errors, GatewayError } from "../errors";
import { mapUpstreamError } from "../providers/openai-compatible/map-upstream-error";
import type { CallContext } from "../routes/call-context";
import type { RoutableChannel } from "./channel-catalog";

/** At most this many channels are tried for one request. */
const MAX_ATTEMPTS = 3;

export interface UpstreamAttempt {
  url: string;
  init: RequestInit;
  upstreamModel: string;
}

export interface ForwardedResponse {
  response: Response;
  channel: RoutableChannel;
  upstreamModel: string;
  /** Aborts the upstream call (client went away mid-stream). */
  abort: () => void;
}

/**
 * Sends the request to the ordered candidates until one answers with something other than a connection
 * error, a timeout, 429 or 5xx. Nothing has reached the client yet at this point, so trying another channel
 * is invisible to it. A 4xx that is the caller's fault is returned as is, never retried.
 */
export async function forwardWithFailover(
  context: CallContext,
  clientSignal: AbortSignal | undefined,
  prepare: (channel: RoutableChannel, signal: AbortSignal) => UpstreamAttempt,
): Promise<ForwardedResponse> {
  let lastError: GatewayError = errors.upstreamUnreachable();
  const attempts = context.candidates.slice(0, MAX_ATTEMPTS);
  for (const channel of attempts) {
    if (clientSignal?.aborted) break;
    context.channelsTried.push(channel.id);
    const controller = new AbortController();
    const onClientAbort = () => controller.abort();
    clientSignal?.addEventListener("abort", onClientAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, channel.config.firstByteTimeoutMs ?? context.services.options.upstreamTimeoutMs);
    const attempt = prepare(channel, controller.signal);
    let response: Response;
    try {
      response = await fetch(attempt.url, attempt.init);
    } catch (error) {
      clearTimeout(timer);
      clientSignal?.removeEventListener("abort", onClientAbort);
      lastError = timedOut ? errors.upstreamTimeout() : errors.upstreamUnreachable();
      context.services.log("warn", "upstream request failed", {
        requestId: context.requestId,
        channel: channel.id,
        reason: timedOut ? "timeout" : (error as Error).name,
      });
      continue;
    }
    clearTimeout(timer);
    if (response.status === 429 || response.status >= 500) {
      const text = await response.text().catch(() => "");
      clientSignal?.removeEventListener("abort", onClientAbort);
      lastError = mapUpstreamError(response.status, text, channel);
      context.services.log("warn", "upstream answered with a retryable error", {
        requestId: context.requestId,
        channel: channel.id,
        status: response.status,
      });
      continue;
    }
    return { response, channel, upstreamModel: attempt.upstreamModel, abort: () => controller.abort() };
  }
  throw lastError;
}
