import { MAX_JSON_DEPTH, nestsDeeperThan } from "@tollgate/shared";
import { authenticate, type Caller } from "../auth/authenticate";
import { errors, GatewayError, type LimitScope, scopeNames } from "../errors";
import type { GatewayServices } from "../gateway-services";
import type { RateLimitDecision } from "../policy/rate-limiter-port";
import { type JsonBody, readJsonBody } from "../routes/read-json-body";
import { checkAnthropicIdentifiers, checkModelName, checkOpenAIIdentifiers } from "../validate-identifiers";
import type { CallRecord } from "./call-record";
import { readMultipartBody } from "./read-multipart-body";

/** A call let in: who called, what they sent, and the model they asked for. */
export interface Admission {
  caller: Caller;
  body: JsonBody;
  model: string;
  /** The whole upload, parsed, for a multipart endpoint (`body` then holds its text fields). */
  form?: FormData;
  /** The same upload as it came (its bytes and content type with the boundary). */
  upload?: { bytes: Uint8Array<ArrayBuffer>; contentType: string };
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
 * Adds the decision's x-ratelimit-* headers to the answer; a refusal becomes a 429 rate_limit_exceeded that
 * names whose limit it is. When the key and its owner both limit a unit, the headers report the tighter
 * (`other`, the decision already reported for the unit, stays when it has less remaining).
 */
function applyRateLimit(
  services: GatewayServices,
  record: CallRecord,
  decision: RateLimitDecision,
  unit: "requests" | "tokens",
  scope: LimitScope,
  other: RateLimitDecision | null = null,
): void {
  const headers = record.rateLimitHeaders;
  const [limitHeader, remainingHeader, resetHeader] = rateLimitHeaderNames[unit];
  if (decision.allowed && other !== null && other.remaining <= decision.remaining) return;
  headers[limitHeader] = String(decision.limit);
  headers[remainingHeader] = String(decision.remaining);
  headers[resetHeader] = formatReset(decision.allowed ? decision.resetMs : decision.retryAfterMs);
  if (decision.allowed) return;
  services.prometheus.rateLimitRefusals.labels(unit).inc();
  throw new GatewayError(
    `Rate limit reached for ${scopeNames[scope]}: ${decision.limit} ${unit} per minute. Retry after ${Math.ceil(decision.retryAfterMs / 1000)} s.`,
    {
      status: 429,
      code: "rate_limit_exceeded",
      headers: { ...headers, "retry-after": String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))) },
    },
  );
}

/**
 * The key's own per-minute limits and its owner's, which all of the owner's keys share. The checks that count
 * nothing (tokens per minute) and the key's requests per minute are sent before any is awaited (on Redis, one
 * round trip). The owner's requests per minute is counted last, once every other limit has let the call in:
 * a call that one key's own limit refuses never uses up the requests its owner's other keys share (one the
 * owner's limit refuses has been counted in the key's own, which only that key feels).
 */
/** Whether any per-minute limit binds the caller: its key's, its owner's or its team's (most have none). */
export function hasRateLimits(caller: Caller): boolean {
  const { token, user } = caller;
  return token.rpmLimit !== null || token.tpmLimit !== null || user.rpmLimit !== null || user.tpmLimit !== null || caller.team !== null;
}

export async function checkRateLimits(services: GatewayServices, record: CallRecord, caller: Caller): Promise<void> {
  const { token, user } = caller;
  const tokenTokens = token.tpmLimit === null ? null : services.tokenRateLimiter.check(token.id, token.tpmLimit);
  const userTokens = user.tpmLimit === null ? null : services.tokenRateLimiter.check(user.rateLimitKey, user.tpmLimit);
  let tokenRequests: RateLimitDecision | null = null;
  if (token.rpmLimit !== null) {
    const checked = services.rateLimiter.check(token.id, token.rpmLimit);
    tokenRequests = checked instanceof Promise ? await checked : checked;
    applyRateLimit(services, record, tokenRequests, "requests", "token");
  }
  let tokensDecision: RateLimitDecision | null = null;
  if (tokenTokens !== null) {
    tokensDecision = tokenTokens instanceof Promise ? await tokenTokens : tokenTokens;
    applyRateLimit(services, record, tokensDecision, "tokens", "token");
  }
  if (userTokens !== null) {
    applyRateLimit(services, record, userTokens instanceof Promise ? await userTokens : userTokens, "tokens", "user", tokensDecision);
  }
  let userRequests: RateLimitDecision | null = null;
  if (user.rpmLimit !== null) {
    const checked = services.rateLimiter.check(user.rateLimitKey, user.rpmLimit);
    userRequests = checked instanceof Promise ? await checked : checked;
    applyRateLimit(services, record, userRequests, "requests", "user", tokenRequests);
  }
  if (caller.team !== null) await checkTeamRateLimits(services, record, caller.team, tokensDecision, tighterOf(tokenRequests, userRequests));
}

function tighterOf(first: RateLimitDecision | null, second: RateLimitDecision | null): RateLimitDecision | null {
  if (first === null) return second;
  if (second === null) return first;
  return second.remaining < first.remaining ? second : first;
}

/**
 * The team's per-minute limits, which all of the team's keys share, counted after the key's and its owner's
 * (limits nest: the tightest refuses, and the headers report the tighter of what was already reported).
 */
async function checkTeamRateLimits(
  services: GatewayServices,
  record: CallRecord,
  team: NonNullable<Caller["team"]>,
  tokensReported: RateLimitDecision | null,
  requestsReported: RateLimitDecision | null,
): Promise<void> {
  if (team.tpmLimit !== null) {
    const checked = services.tokenRateLimiter.check(team.rateLimitKey, team.tpmLimit);
    applyRateLimit(services, record, checked instanceof Promise ? await checked : checked, "tokens", "team", tokensReported);
  }
  if (team.rpmLimit !== null) {
    const checked = services.rateLimiter.check(team.rateLimitKey, team.rpmLimit);
    applyRateLimit(services, record, checked instanceof Promise ? await checked : checked, "requests", "team", requestsReported);
  }
}

/**
 * The checks of every /v1 call that read no body, in the order their errors surface: key (401), source IP
 * (403), rate (429). Plain handlers (models, stored responses) are let in by these alone.
 */
export async function admitCaller(services: GatewayServices, record: CallRecord, request: Request): Promise<Caller> {
  const caller = await authenticate(services, request, record.clientAddress);
  record.identified(caller);
  // Most keys have no per-minute limit at all: no promise on their path.
  if (hasRateLimits(caller)) {
    await checkRateLimits(services, record, caller);
  }
  return caller;
}

/** A model named in the path, percent-decoded; malformed encoding (`%E0%A4%A`) is the client's error. */
function decodePathModel(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw errors.invalidIdentifier("model", "is not valid percent-encoding", encoded);
  }
}

/**
 * The first stage of every exchange: every check that does not depend on the endpoint's own fields, in the
 * order the errors are meant to surface: key (401), source IP (403), rate (429), body (413/400), model name
 * and identifiers (400). `identifiers` says whose rules the names in the body follow; `bodyRules` how the
 * body is read (JSON, or a multipart upload whose text fields stand for the body), the model a body
 * that names none is routed to, the model the path names (which wins over the body's) and whether the
 * endpoint always streams.
 */
export async function admit(
  services: GatewayServices,
  record: CallRecord,
  request: Request,
  identifiers: "openai" | "anthropic",
  bodyRules: { format?: "json" | "multipart"; defaultModel?: string; pathModel?: string; streams?: boolean } = {},
  /** The caller, when admitCaller already let it in (a plain handler that reads a body): only the body is checked. */
  admitted?: Caller,
): Promise<Admission> {
  const { format = "json", defaultModel, pathModel, streams = false } = bodyRules;
  let caller = admitted;
  if (caller === undefined) {
    // admitCaller's checks written out: the hot path keeps one await (no extra promise per call).
    caller = await authenticate(services, request, record.clientAddress);
    record.identified(caller);
    // Most keys have no per-minute limit at all: no promise on their path.
    if (hasRateLimits(caller)) {
      await checkRateLimits(services, record, caller);
    }
  }
  const { maxBodyBytes, bodyReadTimeoutMs } = services.options;
  const limits = { maxBytes: maxBodyBytes, timeoutMs: bodyReadTimeoutMs };
  const multipart = format === "multipart" ? await readMultipartBody(request, limits) : null;
  const body = multipart ? multipart.fields : await readJsonBody(request, limits);
  // Past this depth JSON.stringify (relaying, translating) throws RangeError: refused here, once, for every route.
  if (!multipart && nestsDeeperThan(body.value, MAX_JSON_DEPTH)) {
    throw new GatewayError(`The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`, { status: 400, code: "invalid_value" });
  }
  record.streamRequested = streams || body.value.stream === true;
  const model = pathModel !== undefined ? decodePathModel(pathModel) : (body.value.model ?? defaultModel);
  if (model === undefined || model === null || model === "") throw errors.missingParameter("model");
  if (typeof model !== "string") throw errors.invalidParameter("model", "'model' must be a string.");
  // Before the model reaches a lookup, a log line or a request-log row (a NUL would fail its batch).
  checkModelName(model);
  if (identifiers === "anthropic") checkAnthropicIdentifiers(body.value);
  else checkOpenAIIdentifiers(body.value);
  record.modelAsked(model);
  return multipart ? { caller, body, model, form: multipart.form, upload: multipart.upload } : { caller, body, model };
}
