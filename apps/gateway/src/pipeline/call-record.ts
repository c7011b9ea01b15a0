import { cacheSavings, type MeteredUnits, computeUnitCost, microsToUsd, promptClasses, type TokenUsage } from "@tollgate/shared";
import { addBudgetHeaders } from "../accounting/budget-headers";
import { type BuiltInToolCalls, builtInToolFee, hasToolCalls } from "../accounting/built-in-tools";
import type { Reservation } from "../accounting/quota-ledger";
import type { Caller } from "../auth/authenticate";
import type { GatewayServices } from "../gateway-services";
import type { PricedModel, RoutableChannel } from "../routing/channel-catalog";
import type { CallTrace } from "../tracing/call-trace";

let requestCounter = 0;
const requestIdPrefix = Math.random().toString(36).slice(2, 8);

function nextRequestId(): string {
  requestCounter = (requestCounter + 1) % Number.MAX_SAFE_INTEGER;
  return `req_${requestIdPrefix}${Date.now().toString(36)}${requestCounter.toString(36)}`;
}

/** How one call ended, as finish() accounts it. */
export interface CallOutcome {
  status: number;
  usage: TokenUsage | null;
  usageEstimated?: boolean;
  /** What the call measured in a unit other than tokens (images, audio, characters, a request): billed by it when the model's price is in that unit. */
  units?: MeteredUnits | null;
  channel?: RoutableChannel | null;
  upstreamModel?: string | null;
  errorCode?: string | null;
  stream?: boolean;
  /** Built-in tool calls the upstream made for the call: each billed at the channel's price per call. */
  builtInToolCalls?: BuiltInToolCalls;
  /**
   * The usage could not be counted (the upstream reported none and the local count failed or ran out of
   * time): the call is billed what was held for it, its reservation, never less than `usage` would cost,
   * so that a call whose count fails is never free.
   */
  billReservation?: boolean;
  /** Bytes of the answer's result, where the endpoint measures it (MCP tools/call). */
  responseBytes?: number;
  /** Answered from the response cache: billed the model's cache-hit price, nothing else. */
  cacheHit?: boolean;
}

/**
 * The account of one /v1 call, from its first byte to its request-log row: the last stage of the exchange
 * (finish: settle the held quota, count tokens per minute, metrics, the log line, the request log), run
 * exactly once however the call ends. The stages tell it what it needs to attribute and bill the call as
 * they learn it (identified(), modelAsked(), routed(), held()), so that a call refused half-way is still
 * accounted; everything else they pass on to the next stage as their return values.
 */
export class CallRecord {
  readonly requestId = nextRequestId();
  readonly startedAt = performance.now();
  readonly startedAtDate = new Date();
  /** x-ratelimit-*-requests and -tokens headers for the answer, for the limits the token has. */
  readonly rateLimitHeaders: Record<string, string> = {};
  /** Channels tried, in order (failover appends to it). */
  readonly channelsTried: number[] = [];
  firstByteAt: number | null = null;
  /** The client asked for a stream (`"stream": true`): how an error before the answer is logged. */
  streamRequested = false;
  /** The call's trace when tracing is on (set by app.ts as the call begins); null otherwise. */
  trace: CallTrace | null = null;
  /** What the response cache did for the call (hit, miss, bypass, refresh); null when it was not consulted. */
  responseCache: "hit" | "miss" | "bypass" | "refresh" | null = null;
  private caller: Caller | null = null;
  private model = "";
  /** The model routed to last: the one asked for, or a fallback model that took the call over. */
  private servedModel = "";
  private price: PricedModel | undefined;
  private reservation: Reservation | null = null;
  /** The model is in the catalog: metrics label it by name, not as `_unlisted`. */
  private listed = false;
  /** The endpoint is never billed (count_tokens): routed() keeps no price. */
  private free = false;
  /** Set once finish() has run: every call is accounted exactly once. */
  private finished = false;
  /** The call's cost in micro-USD, once finish() billed it (null before, or for a caller never identified). */
  private billedCost: number | null = null;

  constructor(
    readonly services: GatewayServices,
    readonly clientAddress: string | null,
    readonly endpoint: string,
  ) {
    services.calls.started();
  }

  /** The key is known: its owner is billed for the call (a call refused before has no request-log row). */
  identified(caller: Caller): void {
    this.caller = caller;
  }

  /** The model the client asked for, once it passed the identifier checks. */
  modelAsked(model: string): void {
    this.model = model;
  }

  /** The call costs nothing whatever its model's price: its endpoint's row is notBilled. */
  makeFree(): void {
    this.free = true;
    this.price = undefined;
  }

  /** `model` is served to the caller's group, at `price` (undefined: free); a fallback model routes again. */
  routed(model: string, price: PricedModel | undefined): void {
    this.listed = true;
    this.servedModel = model;
    if (!this.free) this.price = price;
  }

  /** Another model takes the call over: what was held for the previous one is given back, nothing billed. */
  releaseHold(): void {
    if (this.reservation) this.services.ledger.settle(this.reservation, 0);
    this.reservation = null;
  }

  /** Quota held for the call's worst-case cost, settled against the real cost by finish(). */
  held(reservation: Reservation): void {
    this.reservation = reservation;
  }

  /**
   * Headers of every answer: the rate-limit state and the request id, and once the call is billed (every
   * answer that is not a stream: a stream's headers leave before its usage is known) its exact cost in USD;
   * and, for a token or an owner with a budget, what is left of the tighter one and when it resets.
   */
  answerHeaders(): Record<string, string> {
    const headers: Record<string, string> = { ...this.rateLimitHeaders, "x-request-id": this.requestId };
    if (this.servedModel !== "") headers["x-tollgate-model"] = this.servedModel;
    if (this.billedCost !== null) headers["x-tollgate-cost-usd"] = microsToUsd(this.billedCost);
    if (this.responseCache !== null) headers["x-tollgate-cache"] = this.responseCache === "refresh" ? "miss" : this.responseCache;
    if (this.caller) addBudgetHeaders(headers, this.services.ledger, this.caller.token, this.caller.user, this.caller.team);
    return headers;
  }

  private recordMetrics(
    status: number,
    channelId: number | null,
    usage: TokenUsage,
    cost: number,
    latencyMs: number,
    firstTokenMs: number | null,
    stream: boolean,
  ): void {
    const metrics = this.services.prometheus;
    // Models outside the catalog (404s) are folded into one label value to keep the series bounded.
    const model = this.listed ? this.servedModel : "_unlisted";
    metrics.requests.labels(this.endpoint, model, channelId === null ? "" : String(channelId), String(status)).inc();
    metrics.requestDuration.labels(this.endpoint, model).observe(latencyMs / 1000);
    if (stream && firstTokenMs !== null) metrics.timeToFirstToken.labels(model).observe(firstTokenMs / 1000);
    if (usage.promptTokens) metrics.tokens.labels(model, "prompt").inc(usage.promptTokens);
    if (usage.completionTokens) metrics.tokens.labels(model, "completion").inc(usage.completionTokens);
    if (usage.cachedTokens) metrics.tokens.labels(model, "cached").inc(usage.cachedTokens);
    if (usage.cacheWriteTokens) metrics.tokens.labels(model, "cache_write").inc(usage.cacheWriteTokens);
    if (usage.cacheWrite1hTokens) metrics.tokens.labels(model, "cache_write_1h").inc(usage.cacheWrite1hTokens);
    if (cost) metrics.cost.labels(model).inc(cost);
  }

  /** What the call costs in micro-USD with this usage and these units, at its price (what finish() would bill). */
  costOf(usage: TokenUsage, units: MeteredUnits | null): number {
    return computeUnitCost(usage, units, this.price).cost;
  }

  markFirstByte(): void {
    this.firstByteAt ??= performance.now();
  }

  /** Ends the call's spans with what finish() accounted. */
  private traceFinished(outcome: CallOutcome, caller: Caller | null, cost: number): void {
    this.trace!.finished({
      status: outcome.status,
      errorCode: outcome.errorCode ?? null,
      usage: outcome.usage,
      cost,
      model: this.servedModel || this.model,
      upstreamModel: outcome.upstreamModel ?? null,
      stream: outcome.stream ?? false,
      tokenId: caller?.token.id ?? null,
      userId: caller?.user.id ?? null,
      group: caller?.group ?? null,
      teamId: caller?.team?.id ?? null,
      cache: this.responseCache,
    });
  }

  /** Settles the held quota against the real cost and queues the request log row. */
  finish(outcome: CallOutcome): void {
    const caller = this.caller;
    if (this.finished) return;
    this.finished = true;
    this.services.calls.finished();
    if (!caller) {
      if (this.trace) this.traceFinished(outcome, null, 0);
      // Refused before the key was known (401, 503): a log line, but no request-log row to attribute.
      if (this.services.options.logRequests) {
        this.services.log("info", "request", {
          requestId: this.requestId,
          endpoint: this.endpoint,
          status: outcome.status,
          error: outcome.errorCode ?? null,
          latencyMs: Math.round(performance.now() - this.startedAt),
          ip: this.clientAddress,
        });
      }
      return;
    }
    const usage = outcome.usage ?? { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };
    if (caller.token.tpmLimit !== null) {
      this.services.tokenRateLimiter.consume(caller.token.id, usage.promptTokens + usage.completionTokens);
    }
    if (caller.user.tpmLimit !== null) {
      this.services.tokenRateLimiter.consume(caller.user.rateLimitKey, usage.promptTokens + usage.completionTokens);
    }
    if (caller.team?.tpmLimit != null) {
      this.services.tokenRateLimiter.consume(caller.team.rateLimitKey, usage.promptTokens + usage.completionTokens);
    }
    const metered = computeUnitCost(usage, outcome.units ?? null, this.price);
    const { unit, quantity } = metered;
    const classes = promptClasses(usage);
    const toolCalls = hasToolCalls(outcome.builtInToolCalls) ? outcome.builtInToolCalls : undefined;
    const meteredCost = outcome.cacheHit ? (this.price?.cacheHitPrice ?? 0) : metered.cost + builtInToolFee(outcome.channel?.config, toolCalls);
    // A call whose usage could not be counted is billed what was held for it, never less.
    const cost = outcome.billReservation && this.reservation ? Math.max(meteredCost, this.reservation.amount) : meteredCost;
    this.billedCost = cost;
    if (this.reservation) this.services.ledger.settle(this.reservation, cost);
    const now = performance.now();
    const latencyMs = Math.round(now - this.startedAt);
    const firstTokenMs = this.firstByteAt === null ? null : Math.round(this.firstByteAt - this.startedAt);
    if (this.services.options.logRequests) {
      this.services.log("info", "request", {
        requestId: this.requestId,
        endpoint: this.endpoint,
        token: caller.token.id,
        user: caller.user.id,
        model: this.servedModel || this.model,
        // An undefined field is left out of the line (JSON): one shape of object for every call, no spread.
        requestedModel: this.servedModel !== "" && this.servedModel !== this.model ? this.model : undefined,
        channel: outcome.channel?.id ?? null,
        status: outcome.status,
        error: outcome.errorCode ?? null,
        stream: outcome.stream ?? false,
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
        builtInToolCalls: toolCalls,
        cost,
        latencyMs,
        firstTokenMs,
        ip: this.clientAddress,
      });
    }
    this.recordMetrics(outcome.status, outcome.channel?.id ?? null, usage, cost, latencyMs, firstTokenMs, outcome.stream === true);
    this.services.usage.record({
      tokenId: caller.token.id,
      userId: caller.user.id,
      cost,
      periodSubjects: cost === 0 ? undefined : (this.reservation?.periodSubjects ?? this.services.ledger.periodSubjects(caller.token, caller.user, caller.team)),
      previousKey: caller.token.secretRetiresAt !== null,
      log: {
        createdAt: this.startedAtDate,
        requestId: this.requestId,
        userId: caller.user.id,
        tokenId: caller.token.id,
        tokenName: caller.token.name,
        endpoint: this.endpoint,
        model: this.servedModel || this.model,
        requestedModel: this.servedModel !== "" && this.servedModel !== this.model ? this.model : null,
        upstreamModel: outcome.upstreamModel ?? null,
        channelId: outcome.channel?.id ?? null,
        channelsTried: this.channelsTried.length > 0 ? this.channelsTried : null,
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
        cachedTokens: classes.cacheRead,
        cacheWriteTokens: classes.cacheWrite,
        cacheWrite1hTokens: classes.cacheWrite1h,
        usageEstimated: outcome.usageEstimated ?? false,
        billedUnit: unit,
        billedQuantity: quantity,
        cost,
        cacheSavings: unit === "token" ? cacheSavings(usage, this.price) : 0,
        status: outcome.status,
        errorCode: outcome.errorCode ?? null,
        latencyMs,
        firstTokenMs,
        clientIp: this.clientAddress,
        stream: outcome.stream ?? false,
        responseBytes: outcome.responseBytes ?? null,
        responseCache: this.responseCache,
      },
    });
    if (this.trace) this.traceFinished(outcome, caller, cost);
  }
}
