import {
  ChannelCredentialError,
  credentialFailure,
  type MediaHttpRequest,
  type ProviderAdapter,
  readUpstreamErrorText,
  sendUpstream,
  TranslationError,
  UpstreamRedirectError,
  type UpstreamHttpRequest,
} from "@tollgate/upstream";
import { errors, GatewayError } from "../errors";
import type { GatewayServices } from "../gateway-services";
import type { CallTrace } from "../tracing/call-trace";
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
  /** The call's trace (tracing on): one client span per attempt, its context sent upstream. */
  readonly trace?: CallTrace | null;
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
  /**
   * When (performance.now()) the whole exchange must be over if the answer is read whole: UPSTREAM_TIMEOUT_MS
   * after the attempt began (or the channel's longer time to headers). A relayed stream has its idle timeout.
   */
  deadlineAt: number;
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
 * The attempt for one channel, built from the client's input before anything is sent: whatever it throws is
 * the client's request's doing (a TranslationError: 400; anything else: 500), never the channel's fault, so
 * that a client cannot cool channels down with requests that break a translator.
 */
function buildAttempt<Translation>(
  services: FailoverServices,
  call: FailoverCall,
  channel: RoutableChannel,
  prepare: (channel: RoutableChannel, adapter: ProviderAdapter) => UpstreamAttempt<Translation>,
): UpstreamAttempt<Translation> {
  try {
    return prepare(channel, channel.adapter);
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    if (error instanceof TranslationError) throw errors.untranslatable(error);
    services.log("error", "building the upstream request failed", { requestId: call.requestId, channel: channel.id, error: String(error) });
    throw errors.internal();
  }
}

/** The attempt's request with the headers that carry its span's context (traceparent) to the upstream. */
function withTraceContext<Translation>(trace: CallTrace, channel: RoutableChannel, attempt: UpstreamAttempt<Translation>): UpstreamAttempt<Translation>["request"] {
  const { request } = attempt;
  const context = trace.attemptStarted({
    providerType: channel.adapter.type,
    channelId: channel.id,
    channelName: channel.name,
    upstreamModel: attempt.upstreamModel,
    url: request.url,
  });
  return { ...request, headers: { ...request.headers, ...context } } as UpstreamAttempt<Translation>["request"];
}

/** A refusal that is the channel type's limit, not the request's fault: another type may carry the request. */
function isCapabilityGap(error: GatewayError): boolean {
  return error.status === 400 && (error.code === "unsupported_parameter" || error.code === "unsupported_endpoint");
}

/**
 * Sends the request to the candidates in order until one answers with something other than a connection
 * error, a timeout, a redirect (never followed: a channel key must not reach the host it names), or an
 * error its adapter classifies as retryable (429, 5xx) or as the channel's fault (a refused key: the
 * channel is disabled too). Nothing has reached the client yet, so another channel is invisible to it. An
 * error that is the caller's fault is returned, mapped, and never retried. An error answer's body is read
 * for its message only up to UPSTREAM_ERROR_BODY_BYTES, within the time allowed for the headers.
 */
export async function forwardWithFailover<Translation>(
  services: FailoverServices,
  call: FailoverCall,
  candidates: readonly RoutableChannel[],
  clientSignal: AbortSignal | undefined,
  prepare: (channel: RoutableChannel, adapter: ProviderAdapter) => UpstreamAttempt<Translation>,
): Promise<ForwardedResponse<Translation>> {
  let lastError: GatewayError | null = null;
  /** The first channel's refusal to carry the request (a capability gap): the answer when no channel can. */
  let gap: GatewayError | null = null;
  const ordered = byHealth(services, candidates);
  const maxAttempts = services.options.maxUpstreamAttempts;
  let sent = 0;
  for (const channel of ordered) {
    if (clientSignal?.aborted || sent >= maxAttempts) break;
    let attempt: UpstreamAttempt<Translation>;
    try {
      attempt = buildAttempt(services, call, channel, prepare);
    } catch (error) {
      // A channel whose type cannot carry what was asked is passed over, untried and unblamed, so that the
      // answer is the same whatever the routed order: served by a channel that can, 400 when none can.
      if (!(error instanceof GatewayError) || !isCapabilityGap(error)) throw error;
      gap ??= error;
      continue;
    }
    if (call.channelsTried.length > 0) services.metrics?.retry(channel.id);
    call.channelsTried.push(channel.id);
    sent++;
    const adapter = channel.adapter;
    services.health.begin(channel.id);
    const controller = new AbortController();
    const onClientAbort = () => controller.abort();
    clientSignal?.addEventListener("abort", onClientAbort, ONCE);
    let timedOut = false;
    const headersTimeoutMs = channel.config.firstByteTimeoutMs ?? services.options.upstreamTimeoutMs;
    const deadlineAt = performance.now() + Math.max(headersTimeoutMs, services.options.upstreamTimeoutMs);
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, headersTimeoutMs);
    let response: Response;
    const trace = call.trace;
    const upstreamRequest = trace ? withTraceContext(trace, channel, attempt) : attempt.request;
    try {
      response = await sendUpstream(adapter, channel, { method: "POST", ...upstreamRequest }, controller.signal);
    } catch (error) {
      clearTimeout(timer);
      clientSignal?.removeEventListener("abort", onClientAbort);
      if (clientSignal?.aborted) break;
      trace?.attemptFailed(error instanceof ChannelCredentialError ? "credentials" : timedOut ? "timeout" : error instanceof UpstreamRedirectError ? "redirect" : "connection_error");
      if (error instanceof ChannelCredentialError) {
        // The stored credential cannot sign or authorize a request: the operator's problem, as a refused key is.
        lastError = gatewayErrorOf(credentialFailure(error, channel));
        services.metrics?.upstreamError(channel.id, "credentials");
        services.disableChannel(channel, lastError.message.slice(0, 500));
        services.log("warn", "channel credentials unusable", { requestId: call.requestId, channel: channel.id });
        continue;
      }
      const redirected = error instanceof UpstreamRedirectError;
      lastError = timedOut ? errors.upstreamTimeout() : redirected ? errors.upstreamRedirect(error.status) : errors.upstreamUnreachable();
      services.health.recordFailure(channel.id);
      services.metrics?.upstreamError(channel.id, timedOut ? "timeout" : redirected ? "redirect" : "connect");
      services.log("warn", "upstream request failed", {
        requestId: call.requestId,
        channel: channel.id,
        reason: timedOut ? "timeout" : redirected ? `redirect ${(error as UpstreamRedirectError).status}` : (error as Error).name,
      });
      continue;
    }
    const abort = () => controller.abort();
    if (response.ok) {
      clearTimeout(timer);
      services.health.recordSuccess(channel.id);
      return { response, channel, adapter, attempt, upstreamError: null, abort, deadlineAt };
    }
    const status = response.status;
    const errorText = await readUpstreamErrorText(response);
    clearTimeout(timer);
    const mapped = adapter.mapError(status, errorText, channel);
    if (!mapped.retryable && !mapped.channelFault) {
      return { response, channel, adapter, attempt, upstreamError: gatewayErrorOf(mapped), abort, deadlineAt };
    }
    clientSignal?.removeEventListener("abort", onClientAbort);
    lastError = gatewayErrorOf(mapped);
    trace?.attemptFailed(mapped.code ?? String(status), status);
    services.metrics?.upstreamError(channel.id, String(status));
    if (mapped.channelFault) services.disableChannel(channel, `upstream answered ${status}: ${lastError.message}`.slice(0, 500));
    else services.health.recordFailure(channel.id);
    services.log("warn", "upstream answered with a retryable error", { requestId: call.requestId, channel: channel.id, status });
  }
  throw lastError ?? gap ?? errors.upstreamUnreachable();
}
