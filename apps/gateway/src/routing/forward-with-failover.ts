import type { MediaHttpRequest, ProviderAdapter, UpstreamHttpRequest } from "@tollgate/upstream";
import { errors, GatewayError } from "../errors";
import type { GatewayServices } from "../gateway-services";
import type { RoutableChannel } from "./channel-catalog";

/** One channel's request, built by the endpoint for this channel's adapter (once per attempt). */
export interface UpstreamAttempt<Translation> {
  /** A JSON body, or a multipart form for the upload endpoints (images/edits, audio). */
  request: UpstreamHttpRequest | MediaHttpRequest;
  upstreamModel: string;
  /** What the endpoint reads this channel's answer with (e.g. the adapter's translation input). */
  translation: Translation;
}

/** The call failover works for: its id for the log lines, and the channels tried, appended in order. */
export interface FailoverCall {
  readonly requestId: string;
  readonly channelsTried: number[];
}

export interface ForwardedResponse<Translation> {
  /** The upstream's answer; when `upstreamError` is set, its body has been read. */
  response: Response;
  channel: RoutableChannel;
  adapter: ProviderAdapter;
  attempt: UpstreamAttempt<Translation>;
  /** The upstream's error answer, mapped, when it was neither retryable nor the channel's fault (the caller's). */
  upstreamError: GatewayError | null;
  /** Aborts the upstream call (client went away, stream stalled). */
  abort: () => void;
}

type FailoverServices = Pick<GatewayServices, "options" | "health" | "metrics" | "log" | "disableChannel">;

/** Healthy channels in their routed order, then cooling ones (tried only when nothing else is left). */
function byHealth(services: FailoverServices, candidates: readonly RoutableChannel[]): readonly RoutableChannel[] {
  // One pass; the arrays exist only once a cooling channel is met (every channel healthy: the routed order as it is).
  let available: RoutableChannel[] | null = null;
  let cooling: RoutableChannel[] | null = null;
  for (let index = 0; index < candidates.length; index++) {
    const channel = candidates[index]!;
    if (services.health.isAvailable(channel.id)) {
      available?.push(channel);
      continue;
    }
    if (!cooling) {
      available = candidates.slice(0, index);
      cooling = [];
    }
    cooling.push(channel);
  }
  return cooling ? available!.concat(cooling) : candidates;
}

const ONCE = { once: true } as const;

/** An adapter's mapped error in the gateway's error family. */
function gatewayErrorOf(mapped: ReturnType<ProviderAdapter["mapError"]>): GatewayError {
  return new GatewayError(mapped.message, { status: mapped.status, code: mapped.code, type: mapped.type, param: mapped.param });
}

/**
 * Sends the request to the candidates in order until one answers with something other than a connection
 * error, a timeout, or an error its adapter classifies as retryable (429, 5xx) or as the channel's fault (a
 * refused key: the channel is disabled too). Nothing has reached the client yet, so another channel is
 * invisible to it. An error that is the caller's fault is returned, mapped, and never retried.
 */
export async function forwardWithFailover<Translation>(
  services: FailoverServices,
  call: FailoverCall,
  candidates: readonly RoutableChannel[],
  clientSignal: AbortSignal | undefined,
  prepare: (channel: RoutableChannel, adapter: ProviderAdapter) => UpstreamAttempt<Translation>,
): Promise<ForwardedResponse<Translation>> {
  let lastError: GatewayError | null = null;
  const ordered = byHealth(services, candidates);
  const attempts = ordered.length > services.options.maxUpstreamAttempts ? ordered.slice(0, services.options.maxUpstreamAttempts) : ordered;
  for (const channel of attempts) {
    if (clientSignal?.aborted) break;
    if (call.channelsTried.length > 0) services.metrics?.retry(channel.id);
    call.channelsTried.push(channel.id);
    services.health.begin(channel.id);
    const controller = new AbortController();
    const onClientAbort = () => controller.abort();
    clientSignal?.addEventListener("abort", onClientAbort, ONCE);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, channel.config.firstByteTimeoutMs ?? services.options.upstreamTimeoutMs);
    const adapter = channel.adapter;
    let attempt: UpstreamAttempt<Translation>;
    let response: Response;
    try {
      attempt = prepare(channel, adapter);
      const { url, headers, body } = attempt.request;
      response = await fetch(url, { method: "POST", headers, body, signal: controller.signal });
    } catch (error) {
      clearTimeout(timer);
      clientSignal?.removeEventListener("abort", onClientAbort);
      if (error instanceof GatewayError) throw error;
      if (clientSignal?.aborted) break;
      lastError = timedOut ? errors.upstreamTimeout() : errors.upstreamUnreachable();
      services.health.recordFailure(channel.id);
      services.metrics?.upstreamError(channel.id, timedOut ? "timeout" : "connect");
      services.log("warn", "upstream request failed", {
        requestId: call.requestId,
        channel: channel.id,
        reason: timedOut ? "timeout" : (error as Error).name,
      });
      continue;
    }
    clearTimeout(timer);
    const abort = () => controller.abort();
    if (response.ok) {
      services.health.recordSuccess(channel.id);
      return { response, channel, adapter, attempt, upstreamError: null, abort };
    }
    const status = response.status;
    const mapped = adapter.mapError(status, await response.text().catch(() => ""), channel);
    if (!mapped.retryable && !mapped.channelFault) {
      return { response, channel, adapter, attempt, upstreamError: gatewayErrorOf(mapped), abort };
    }
    clientSignal?.removeEventListener("abort", onClientAbort);
    lastError = gatewayErrorOf(mapped);
    services.metrics?.upstreamError(channel.id, String(status));
    if (mapped.channelFault) services.disableChannel(channel, `upstream answered ${status}: ${lastError.message}`.slice(0, 500));
    else services.health.recordFailure(channel.id);
    services.log("warn", "upstream answered with a retryable error", { requestId: call.requestId, channel: channel.id, status });
  }
  throw lastError ?? errors.upstreamUnreachable();
}
