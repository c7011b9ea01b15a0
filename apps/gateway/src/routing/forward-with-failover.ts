import { errors, GatewayError } from "../errors";
import type { CallContext } from "../routes/call-context";
import type { RoutableChannel } from "./channel-catalog";

export interface UpstreamAttempt {
  url: string;
  init: RequestInit;
  upstreamModel: string;
  /** The upstream's error answer in our envelope (each protocol has its own error body). */
  mapError(status: number, bodyText: string): GatewayError;
}

export interface ForwardedResponse {
  response: Response;
  channel: RoutableChannel;
  upstreamModel: string;
  attempt: UpstreamAttempt;
  /** Aborts the upstream call (client went away, stream stalled). */
  abort: () => void;
}

/** Healthy channels in their routed order, then cooling ones (tried only when nothing else is left). */
function byHealth(context: CallContext): RoutableChannel[] {
  const health = context.services.health;
  const available: RoutableChannel[] = [];
  const cooling: RoutableChannel[] = [];
  for (const channel of context.candidates) (health.isAvailable(channel.id) ? available : cooling).push(channel);
  return available.concat(cooling);
}

/**
 * Sends the request to the candidates in order until one answers with something other than a connection
 * error, a timeout, 429 or 5xx, or a rejection of the channel's own key (401/403, which also disables the
 * channel). Nothing has reached the client yet, so another channel is invisible to it. A 4xx that is the
 * caller's fault is returned as is and never retried.
 */
export async function forwardWithFailover(
  context: CallContext,
  clientSignal: AbortSignal | undefined,
  prepare: (channel: RoutableChannel, signal: AbortSignal) => UpstreamAttempt,
): Promise<ForwardedResponse> {
  const { services } = context;
  let lastError: GatewayError | null = null;
  const attempts = byHealth(context).slice(0, services.options.maxUpstreamAttempts);
  for (const channel of attempts) {
    if (clientSignal?.aborted) break;
    if (context.channelsTried.length > 0) services.metrics?.retry(channel.id);
    context.channelsTried.push(channel.id);
    services.health.begin(channel.id);
    const controller = new AbortController();
    const onClientAbort = () => controller.abort();
    clientSignal?.addEventListener("abort", onClientAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, channel.config.firstByteTimeoutMs ?? services.options.upstreamTimeoutMs);
    let attempt: UpstreamAttempt;
    let response: Response;
    try {
      attempt = prepare(channel, controller.signal);
      response = await fetch(attempt.url, attempt.init);
    } catch (error) {
      clearTimeout(timer);
      clientSignal?.removeEventListener("abort", onClientAbort);
      if (error instanceof GatewayError) throw error;
      if (clientSignal?.aborted) break;
      lastError = timedOut ? errors.upstreamTimeout() : errors.upstreamUnreachable();
      services.health.recordFailure(channel.id);
      services.metrics?.upstreamError(channel.id, timedOut ? "timeout" : "connect");
      services.log("warn", "upstream request failed", {
        requestId: context.requestId,
        channel: channel.id,
        reason: timedOut ? "timeout" : (error as Error).name,
      });
      continue;
    }
    clearTimeout(timer);
    const status = response.status;
    if (status === 401 || status === 403 || status === 429 || status >= 500) {
      const text = await response.text().catch(() => "");
      clientSignal?.removeEventListener("abort", onClientAbort);
      lastError = attempt.mapError(status, text);
      services.metrics?.upstreamError(channel.id, String(status));
      if (status === 401 || status === 403) {
        services.disableChannel(channel, `upstream answered ${status}: ${lastError.message}`.slice(0, 500));
      } else {
        services.health.recordFailure(channel.id);
      }
      services.log("warn", "upstream answered with a retryable error", { requestId: context.requestId, channel: channel.id, status });
      continue;
    }
    if (status === 400 && channel.type !== "openai-compatible") {
      // Some upstreams reject a bad key with 400 (Gemini's API_KEY_INVALID); their adapter says so through
      // the upstream_auth_failed code. That is the channel's fault, not the caller's: disable and move on.
      const text = await response.text().catch(() => "");
      const mapped = attempt.mapError(status, text);
      if (mapped.code === "upstream_auth_failed") {
        clientSignal?.removeEventListener("abort", onClientAbort);
        lastError = mapped;
        services.metrics?.upstreamError(channel.id, String(status));
        services.disableChannel(channel, `upstream rejected the key (${status}): ${mapped.message}`.slice(0, 500));
        continue;
      }
      response = new Response(text, { status, headers: response.headers });
    }
    if (response.ok) services.health.recordSuccess(channel.id);
    return { response, channel, upstreamModel: attempt.upstreamModel, attempt, abort: () => controller.abort() };
  }
  throw lastError ?? errors.upstreamUnreachable();
}
