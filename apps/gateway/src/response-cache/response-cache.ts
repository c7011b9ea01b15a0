import { errors } from "../errors";
import type { GatewayServices } from "../gateway-services";
import type { Logger } from "../logger";
import { checkModelAllowed } from "../policy/model-allowed";
import { channelsFor } from "../routing/choose-channels";
import type { Admission } from "../pipeline/admit";
import type { CallRecord } from "../pipeline/call-record";
import { responseCacheKey } from "./cache-key";
import type { ResponseCacheStore } from "./response-cache-store";

/** What the call's request and token ask of the cache: read then write (lookup), write only (refresh), or nothing (bypass). */
export interface CachePlan {
  mode: "lookup" | "refresh" | "bypass";
  ttlSeconds: number;
  key: string;
}

/** A per-request `x-tollgate-cache: on` on a token without a TTL keeps answers this long unless x-tollgate-cache-ttl says. */
export const DEFAULT_REQUEST_TTL_SECONDS = 300;
/** The longest any answer is kept: a week. */
export const MAX_TTL_SECONDS = 7 * 24 * 3600;

/** The response cache of a gateway: its store and the largest entry it keeps. */
export interface ResponseCache {
  store: ResponseCacheStore;
  maxEntryBytes: number;
}

/** One cached answer: when it was stored (epoch ms), its content type, and its body (JSON, or the event stream as relayed). */
interface CachedAnswer {
  storedAt: number;
  contentType: string;
  body: string;
}

/**
 * The cache's part in one call, or null when it has none: the token's setting is off and the request sent
 * no x-tollgate-cache header (the common case: two reads of memory and one header lookup). Answers of a
 * whole and of a streamed call are kept side by side under the same key (`:sse` for the stream).
 */
export function cachePlanFor(request: Request, endpoint: string, admission: Admission, stream: boolean): CachePlan | null {
  const { token, user } = admission.caller;
  const header = request.headers.get("x-tollgate-cache");
  if (header === null && token.responseCacheTtlSeconds === null) return null;
  const asked = header?.trim().toLowerCase() ?? "on";
  if (asked !== "on" && asked !== "off" && asked !== "refresh") {
    throw errors.invalidParameter("x-tollgate-cache", "The x-tollgate-cache header must be on, off or refresh.");
  }
  const ttlHeader = request.headers.get("x-tollgate-cache-ttl");
  let ttlSeconds = token.responseCacheTtlSeconds ?? DEFAULT_REQUEST_TTL_SECONDS;
  if (ttlHeader !== null) {
    // Digits only: Number() would also take "0x10", "1e3" or "1.0" for a number of seconds.
    const parsed = /^\d{1,7}$/.test(ttlHeader.trim()) ? Number(ttlHeader.trim()) : Number.NaN;
    if (!Number.isInteger(parsed) || parsed < 1 || parsed > MAX_TTL_SECONDS) {
      throw errors.invalidParameter("x-tollgate-cache-ttl", `The x-tollgate-cache-ttl header must be a whole number of seconds from 1 to ${MAX_TTL_SECONDS}.`);
    }
    ttlSeconds = parsed;
  }
  const scope = cacheScopeOf(admission.caller);
  const key = responseCacheKey(endpoint, scope, admission.model, admission.body.value) + (stream ? ":sse" : "");
  return { mode: asked === "off" ? "bypass" : asked === "refresh" ? "refresh" : "lookup", ttlSeconds, key };
}

/**
 * The cached answer for the plan's key, as the client's response, or null (a miss: the call goes upstream).
 * A hit is still checked against the caller's model rules and routing group (a key never serves a model the
 * caller may not use), its price held against the quota, then billed at the model's cache-hit price and
 * logged as a hit.
 */
export async function answerFromCache(services: GatewayServices, record: CallRecord, plan: CachePlan, admission: Admission, stream: boolean): Promise<Response | null> {
  const stored = await services.responseCache.store.get(plan.key);
  const cached = stored === null ? null : decodeEntry(stored);
  if (!cached) return null;
  const { caller, model } = admission;
  checkModelAllowed(caller, model);
  const catalogResult = services.catalog.get();
  const catalog = catalogResult instanceof Promise ? await catalogResult : catalogResult;
  if (!channelsFor(catalog.channelsByModel.get(model), caller.group).listedInGroup) return null;
  const price = catalog.prices.get(model);
  const hitPrice = price?.cacheHitPrice ?? 0;
  if (hitPrice > 0) {
    // A priced hit is held against the quota like any call: one that does not fit goes the usual way,
    // where routing refuses it (429) in the client's format.
    const holding = services.ledger.reserve(caller.token, caller.user, hitPrice, undefined);
    const held = holding instanceof Promise ? await holding : holding;
    if ("refused" in held) return null;
    record.held(held);
  }
  record.routed(model, price);
  record.responseCache = "hit";
  record.markFirstByte();
  record.finish({ status: 200, usage: null, cacheHit: true, stream });
  const headers = { "content-type": cached.contentType, age: String(Math.max(0, Math.floor((Date.now() - cached.storedAt) / 1000))), ...record.answerHeaders() };
  if (stream) Object.assign(headers, { "cache-control": "no-cache", connection: "keep-alive" });
  return new Response(cached.body, { status: 200, headers });
}

function decodeEntry(stored: string): CachedAnswer | null {
  try {
    const entry = JSON.parse(stored) as CachedAnswer;
    return typeof entry.body === "string" && typeof entry.storedAt === "number" && typeof entry.contentType === "string" ? entry : null;
  } catch {
    return null;
  }
}

/**
 * An answer the model refused or a filter cut: never cached (asked again, it may be answered). Read from
 * the text as it would be sent: chat's finish_reason content_filter or a non-null refusal, Messages'
 * stop_reason refusal, Responses' refusal content, Gemini's SAFETY.
 */
export function isRefusal(text: string): boolean {
  return (
    text.includes('"content_filter"') ||
    /"refusal":\s*"/.test(text) ||
    text.includes('"stop_reason":"refusal"') ||
    text.includes('"type":"refusal"') ||
    text.includes('"finishReason":"SAFETY"')
  );
}

/**
 * Keeps a successful answer under the plan's key, unless it is a refusal or larger than the cap. Awaited
 * before the answer ends (one SETEX, or a map write): the next identical call, on any instance, finds it.
 * A failed write is logged, never the call's failure.
 */
export async function storeAnswer(cache: ResponseCache, log: Logger, plan: CachePlan, contentType: string, body: string): Promise<void> {
  if (plan.mode === "bypass" || body.length > cache.maxEntryBytes || isRefusal(body)) return;
  const entry = JSON.stringify({ storedAt: Date.now(), contentType, body } satisfies CachedAnswer);
  await cache.store.set(plan.key, entry, plan.ttlSeconds).catch((error: unknown) => log("warn", "response cache write failed", { error: String(error) }));
}

/**
 * The relayed event stream with a copy kept for the cache: stored when the stream ended completed (`ended`
 * answers the sink's outcome) and stayed under the entry cap; dropped as soon as it grows past it.
 */
export function keepStreamCopy(
  cache: ResponseCache,
  log: Logger,
  plan: CachePlan,
  relayed: ReadableStream<Uint8Array>,
  completed: () => boolean,
): ReadableStream<Uint8Array> {
  if (plan.mode === "bypass") return relayed;
  const decoder = new TextDecoder();
  let copy: string | null = "";
  return relayed.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (copy !== null) {
          copy += decoder.decode(chunk, { stream: true });
          if (copy.length > cache.maxEntryBytes) copy = null;
        }
        controller.enqueue(chunk);
      },
      async flush() {
        if (copy === null || !completed()) return;
        await storeAnswer(cache, log, plan, "text/event-stream; charset=utf-8", copy + decoder.decode());
      },
    }),
  );
}

/**
 * Whose calls share cached answers: the token's own, its team's (every token of the team), the routing
 * group's, or by default its owner's. A team scope on a token that has left its team falls back to the owner.
 */
function cacheScopeOf(caller: Admission["caller"]): string {
  const { token, user, team } = caller;
  switch (token.responseCacheScope) {
    case "token":
      return `t${token.id}`;
    case "team":
      return team !== null ? `m${team.id}` : `u${user.id}`;
    case "group":
      return `g${caller.group}`;
    default:
      return `u${user.id}`;
  }
}
