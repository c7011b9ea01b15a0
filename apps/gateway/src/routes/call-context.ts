import { computeCost, type TokenUsage } from "@tollgate/shared";
import type { Reservation } from "../accounting/quota-ledger";
import { authenticate, type Caller } from "../auth/authenticate";
import { errors, GatewayError } from "../errors";
import type { GatewayServices } from "../gateway-services";
import type { RateLimitDecision } from "../policy/rate-limiter-port";
import type { PricedModel, RoutableChannel } from "../routing/channel-catalog";
import { channelsFor, orderChannels } from "../routing/choose-channels";
import { checkAnthropicIdentifiers, checkModelName, checkOpenAIIdentifiers } from "../validate-identifiers";
import { type JsonBody, readJsonBody } from "./read-json-body";

let requestCounter = 0;
const requestIdPrefix = Math.random().toString(36).slice(2, 8);

function nextRequestId(): string {
  requestCounter = (requestCounter + 1) % Number.MAX_SAFE_INTEGER;
  return `req_${requestIdPrefix}${Date.now().toString(36)}${requestCounter.toString(36)}`;
}

function formatReset(milliseconds: number): string {
  const seconds = Math.max(0, Math.ceil(milliseconds / 1000));
  return seconds >= 60 ? `${Math.floor(seconds / 60)}m${seconds % 60}s` : `${seconds}s`;
}

const rateLimitHeaderNames = {
  requests: ["x-ratelimit-limit-requests", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests"],
  tokens: ["x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"],
} as const;

/**
 * One /v1 call from its first byte to its accounting: who called, what they asked, which channels may
 * serve it, and the quota held for it. Every rule is checked here, in the order the errors are meant to
 * surface: key (401), source IP (403), rate (429), body (413/400), model (403/404/503), quota (429).
 */
export class CallContext {
  readonly requestId = nextRequestId();
  readonly startedAt = performance.now();
  readonly startedAtDate = new Date();
  caller: Caller | null = null;
  body: JsonBody | null = null;
  model = "";
  candidates: RoutableChannel[] = [];
  price: PricedModel | undefined;
  reservation: Reservation | null = null;
  /** x-ratelimit-*-requests and -tokens headers for the answer, for the limits the token has. */
  rateLimitHeaders: Record<string, string> = {};
  firstByteAt: number | null = null;
  /** Set once finish() has run: every call is accounted exactly once. */
  finished = false;
  channelsTried: number[] = [];

  constructor(
    readonly services: GatewayServices,
    readonly request: Request,
    readonly clientAddress: string | null,
    readonly endpoint: string,
  ) {
    services.calls.started();
  }

  /** Runs every check that does not depend on the endpoint's own fields. */
  async admit(): Promise<void> {
    const caller = await authenticate(this.services, this.request, this.clientAddress);
    this.caller = caller;
    const { id, rpmLimit, tpmLimit } = caller.token;
    // Both checks are sent before either is awaited: on Redis, one round trip instead of two.
    const tokensChecked = tpmLimit === null ? null : this.services.tokenRateLimiter.check(id, tpmLimit);
    if (rpmLimit !== null) {
      const checked = this.services.rateLimiter.check(id, rpmLimit);
      this.applyRateLimit(checked instanceof Promise ? await checked : checked, "requests");
    }
    if (tokensChecked !== null) {
      this.applyRateLimit(tokensChecked instanceof Promise ? await tokensChecked : tokensChecked, "tokens");
    }
    const { maxBodyBytes, bodyReadTimeoutMs } = this.services.options;
    this.body = await readJsonBody(this.request, { maxBytes: maxBodyBytes, timeoutMs: bodyReadTimeoutMs });
    const body = this.body.value;
    const model = body.model;
    if (model === undefined || model === null || model === "") throw errors.missingParameter("model");
    if (typeof model !== "string") throw errors.invalidParameter("model", "'model' must be a string.");
    // Before the model reaches a lookup, a log line or a request-log row (a NUL would fail its batch).
    checkModelName(model);
    if (this.endpoint === "messages") checkAnthropicIdentifiers(body);
    else checkOpenAIIdentifiers(body);
    this.model = model;
  }

  /** Adds the decision's x-ratelimit-* headers to the answer; a refusal becomes a 429 rate_limit_exceeded. */
  private applyRateLimit(decision: RateLimitDecision, unit: "requests" | "tokens"): void {
    const [limitHeader, remainingHeader, resetHeader] = rateLimitHeaderNames[unit];
    this.rateLimitHeaders[limitHeader] = String(decision.limit);
    this.rateLimitHeaders[remainingHeader] = String(decision.remaining);
    this.rateLimitHeaders[resetHeader] = formatReset(decision.allowed ? decision.resetMs : decision.retryAfterMs);
    if (decision.allowed) return;
    this.services.prometheus.rateLimitRefusals.labels(unit).inc();
    throw new GatewayError(
      `Rate limit reached for this API key: ${decision.limit} ${unit} per minute. Retry after ${Math.ceil(decision.retryAfterMs / 1000)} s.`,
      {
        status: 429,
        code: "rate_limit_exceeded",
        headers: { ...this.rateLimitHeaders, "retry-after": String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))) },
      },
    );
  }

  /** Model rules and routing; then holds the worst-case cost (prompt bound + completion bound). */
  async route(worstCaseCompletionTokens: number): Promise<void> {
    const caller = this.caller as Caller;
    if (caller.token.allowedModels && !caller.token.allowedModels.has(this.model)) {
      throw errors.modelNotAllowed(this.model);
    }
    const catalogResult = this.services.catalog.get();
    const catalog = catalogResult instanceof Promise ? await catalogResult : catalogResult;
    const { usable, listedInGroup } = channelsFor(catalog.channelsByModel.get(this.model), caller.group);
    if (!listedInGroup) throw errors.modelNotFound(this.model);
    if (usable.length === 0) throw errors.noChannel(this.model);
    this.candidates = orderChannels(usable);
    this.price = catalog.prices.get(this.model);
    // A prompt never has more tokens than bytes of the body that carries it, so this bound is safe.
    const usage: TokenUsage = {
      promptTokens: (this.body as JsonBody).bytes,
      completionTokens: worstCaseCompletionTokens,
      cachedTokens: 0,
    };
    const amount = computeCost(usage, this.price);
    const holding = this.services.ledger.reserve(caller.token, caller.user, amount);
    const held = holding instanceof Promise ? await holding : holding;
    if ("refused" in held) {
      throw errors.insufficientQuota(
        held.refused === "token"
          ? "This API key's quota is used up or cannot cover this request. Raise its quota in the console."
          : "Your account balance cannot cover this request. Top up in the console.",
      );
    }
    this.reservation = held;
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
    const model = this.price !== undefined || this.candidates.length > 0 ? this.model : "_unlisted";
    metrics.requests.labels(this.endpoint, model, channelId === null ? "" : String(channelId), String(status)).inc();
    metrics.requestDuration.labels(this.endpoint, model).observe(latencyMs / 1000);
    if (stream && firstTokenMs !== null) metrics.timeToFirstToken.labels(model).observe(firstTokenMs / 1000);
    if (usage.promptTokens) metrics.tokens.labels(model, "prompt").inc(usage.promptTokens);
    if (usage.completionTokens) metrics.tokens.labels(model, "completion").inc(usage.completionTokens);
    if (usage.cachedTokens) metrics.tokens.labels(model, "cached").inc(usage.cachedTokens);
    if (cost) metrics.cost.labels(model).inc(cost);
  }

  markFirstByte(): void {
    this.firstByteAt ??= performance.now();
  }

  /** Settles the held quota against the real cost and queues the request log row. */
  finish(outcome: {
    status: number;
    usage: TokenUsage | null;
    usageEstimated?: boolean;
    channel?: RoutableChannel | null;
    upstreamModel?: string | null;
    errorCode?: string | null;
    stream?: boolean;
  }): void {
    const caller = this.caller;
    if (this.finished) return;
    this.finished = true;
    this.services.calls.finished();
    if (!caller) {
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
    const cost = computeCost(usage, this.price);
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
        model: this.model,
        channel: outcome.channel?.id ?? null,
        status: outcome.status,
        error: outcome.errorCode ?? null,
        stream: outcome.stream ?? false,
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
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
      log: {
        createdAt: this.startedAtDate,
        requestId: this.requestId,
        userId: caller.user.id,
        tokenId: caller.token.id,
        tokenName: caller.token.name,
        endpoint: this.endpoint,
        model: this.model || "",
        upstreamModel: outcome.upstreamModel ?? null,
        channelId: outcome.channel?.id ?? null,
        channelsTried: this.channelsTried.length > 0 ? this.channelsTried : null,
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
        cachedTokens: usage.cachedTokens,
        usageEstimated: outcome.usageEstimated ?? false,
        cost,
        status: outcome.status,
        errorCode: outcome.errorCode ?? null,
        latencyMs,
        firstTokenMs,
        clientIp: this.clientAddress,
        stream: outcome.stream ?? false,
      },
    });
  }
}
