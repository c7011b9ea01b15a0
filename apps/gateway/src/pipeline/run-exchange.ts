import type { TokenUsage } from "@tollgate/shared";
import { type BuiltInToolCalls, builtInToolFee } from "../accounting/built-in-tools";
import { uncountedUsage } from "../accounting/count-tokens";
import { defaultMaxTokensFor } from "../accounting/default-max-tokens";
import { errors, GatewayError } from "../errors";
import type { GatewayServices } from "../gateway-services";
import type { ForwardedResponse } from "../routing/forward-with-failover";
import { readWholeAnswer } from "../routing/read-whole-answer";
import type { StreamOutcome } from "../streaming/relay-stream";
import { admit } from "./admit";
import type { CallRecord } from "./call-record";
import type { Codec, ParsedCall, StreamSink, WholeAnswer } from "./codec";
import { answersAsStream } from "../streaming/parse-event-stream";
import { fallBack } from "./model-fallback";
import { ContextWindowExceeded } from "./route";
import { serveModel } from "./serve-model";
import { answerFromCache, cachePlanFor, keepStreamCopy, storeAnswer } from "../response-cache/response-cache";

const streamHeaders = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" };

function outcomeStatus(outcome: StreamOutcome): { status: number; errorCode: string | null } {
  if (outcome === "completed") return { status: 200, errorCode: null };
  if (outcome === "cancelled") return { status: 499, errorCode: "client_closed" };
  if (outcome === "stalled") return { status: 504, errorCode: "upstream_idle_timeout" };
  if (outcome === "too_large") return { status: 502, errorCode: "upstream_response_too_large" };
  return { status: 502, errorCode: "upstream_stream_error" };
}

/**
 * How the caller learns when a streamed answer is out: `streaming` is set when the answer is a relayed
 * stream, and `drained` is called once its last chunk has been handed over (not when the client left).
 */
export interface AnswerWatch {
  streaming: boolean;
  drained(): void;
}

/**
 * The one exchange every /v1 call goes through: admit -> (the codec parses) -> route -> forward with
 * failover -> map errors -> relay, whole or streamed -> usage -> finish, exactly once. A thrown GatewayError
 * is answered by the caller (app.ts), which finishes the call if nothing has yet.
 */
export async function runExchange<Parsed, Translation, Answer extends WholeAnswer>(
  services: GatewayServices,
  record: CallRecord,
  request: Request,
  codec: Codec<Parsed, Translation, Answer>,
  watch?: AnswerWatch,
  /** The path's parameters by the names the row's path gives them (the model of `/models/{model}:generateContent`). */
  params: Record<string, string> = {},
): Promise<Response> {
  if (codec.notBilled) record.makeFree();
  const admission = await admit(services, record, request, codec.identifiers, {
    format: codec.bodyFormat,
    defaultModel: codec.defaultModel,
    pathModel: codec.modelParam === undefined ? undefined : (params[codec.modelParam] ?? ""),
    streams: codec.streams,
  });
  if (record.trace) record.trace.requested(admission.body.value);
  const parsedResult = codec.parse(admission, services, request);
  let parsed = parsedResult instanceof Promise ? await parsedResult : parsedResult;
  // The response cache: one flag for endpoints it never serves, one setting and one header for the others.
  const cachePlan = codec.cacheable ? cachePlanFor(request, codec.endpoint, admission, parsed.stream) : null;
  if (cachePlan) {
    record.responseCache = cachePlan.mode === "lookup" ? "miss" : cachePlan.mode;
    if (cachePlan.mode === "lookup") {
      const hit = await answerFromCache(services, record, cachePlan, admission, parsed.stream);
      if (hit) return hit;
    }
  }
  const reserved = parsed.reservationBody ? { ...admission, body: { ...admission.body, ...parsed.reservationBody } } : admission;
  // The defaults are the pipeline's: a request that names no max output holds its model's default.
  const maxOutputTokens = parsed.maxOutputTokens ?? (await defaultMaxTokensFor(services, admission.model));
  let worstCaseCompletionTokens = parsed.answers === undefined ? maxOutputTokens : maxOutputTokens * parsed.answers;
  let forwarded: ForwardedResponse<Translation>;
  let served: ForwardedResponse<Translation> | GatewayError | ContextWindowExceeded;
  try {
    served = await serveModel(services, record, request, codec, reserved, parsed, worstCaseCompletionTokens, !codec.answerLocally);
  } catch (error) {
    if (codec.answerLocally && error instanceof GatewayError && error.code === "unsupported_endpoint") return codec.answerLocally(parsed.request, record, services);
    throw error;
  }
  if (!(served instanceof GatewayError || served instanceof ContextWindowExceeded)) {
    forwarded = served;
  } else if (codec.answerLocally) {
    if (request.signal.aborted) throw served;
    services.log("warn", "no channel answered; answering locally", { requestId: record.requestId, endpoint: codec.endpoint });
    return codec.answerLocally(parsed.request, record, services);
  } else {
    // The model cannot serve the call: its fallback models may (none: the failure is the answer).
    ({ parsed, worstCaseCompletionTokens, forwarded } = await fallBack(services, record, request, codec, admission, { parsed, worstCaseCompletionTokens, reserved }, served));
  }
  const { response, channel, attempt } = forwarded;
  if (forwarded.upstreamError) {
    const { status, code } = forwarded.upstreamError;
    if (codec.answersLocallyAfter?.(forwarded.response.status)) {
      services.log("info", "the upstream does not serve the endpoint; answering locally", { requestId: record.requestId, channel: channel.id, status });
      return codec.answerLocally!(parsed.request, record, services);
    }
    if (codec.timesErrorAnswers) record.markFirstByte();
    record.finish({ status, usage: null, channel, upstreamModel: attempt.upstreamModel, errorCode: code, stream: parsed.stream });
    throw forwarded.upstreamError;
  }
  const isEventStream = answersAsStream(forwarded.adapter, response);
  if (codec.relay && parsed.stream && isEventStream && response.body) {
    if (record.trace) forwarded.response = record.trace.watchStream(response);
    const sink = streamSink(services, record, request, codec, parsed, forwarded, watch, admission.body.bytes);
    if (!cachePlan) {
      const relayed = codec.relay(forwarded, parsed.request, sink);
      if (watch) watch.streaming = true;
      return new Response(relayed, { status: 200, headers: { ...streamHeaders, ...record.answerHeaders() } });
    }
    let ended: StreamOutcome | null = null;
    const watched: StreamSink = { ...sink, end: (outcome, ...rest) => ((ended = outcome), sink.end(outcome, ...rest)) };
    const relayed = keepStreamCopy(services.responseCache, services.log, cachePlan, codec.relay(forwarded, parsed.request, watched), () => ended === "completed");
    if (watch) watch.streaming = true;
    return new Response(relayed, { status: 200, headers: { ...streamHeaders, ...record.answerHeaders() } });
  }
  if (codec.passThrough && response.body) {
    const relayed = codec.passThrough(forwarded, parsed.request, streamSink(services, record, request, codec, parsed, forwarded, watch, admission.body.bytes));
    if (watch) watch.streaming = true;
    const contentType = response.headers.get("content-type") ?? "application/octet-stream";
    return new Response(relayed, { status: 200, headers: { "content-type": contentType, ...record.answerHeaders() } });
  }
  let text: string;
  try {
    text = await readWholeAnswer(services, forwarded, record.requestId, request.signal);
  } catch (error) {
    if (error instanceof GatewayError && error.code === "upstream_response_too_large") {
      record.finish({
        status: error.status,
        usage: await reservedUsage(codec, parsed, worstCaseCompletionTokens),
        usageEstimated: true,
        billReservation: true,
        units: parsed.worstCaseUnits ?? null,
        channel,
        upstreamModel: attempt.upstreamModel,
        errorCode: error.code,
      });
    }
    throw error;
  }
  record.markFirstByte();
  const answer = codec.readWhole(text, forwarded, parsed.request);
  if (answer && record.trace) record.trace.answered(answer.body);
  if (!answer && codec.answerLocally) {
    services.log("warn", "upstream answer unreadable; answering locally", { requestId: record.requestId, channel: channel.id });
    return codec.answerLocally(parsed.request, record, services);
  }
  if (!answer) {
    record.finish({ status: 502, usage: null, channel, upstreamModel: attempt.upstreamModel, errorCode: "upstream_bad_response" });
    throw errors.upstreamUnreachable();
  }
  const estimated = answer.usage === null;
  let usage = answer.usage;
  let billReservation = false;
  if (usage === null) {
    const produced = codec.producedText(answer);
    try {
      usage = await codec.estimateUsage(parsed.request, produced);
    } catch (error) {
      services.log("warn", "usage could not be counted; billing the reservation", { requestId: record.requestId, error: String(error) });
      usage = uncountedUsage(admission.body.bytes, produced);
      billReservation = true;
    }
  }
  // A call never billed measures nothing (its log row shows no billed unit, as before it was a codec).
  const units = answer.units ?? (codec.notBilled ? null : { unit: "request" as const });
  const builtInToolCalls = answer.builtInToolCalls ?? perAnswerToolCalls(parsed);
  record.finish({ status: 200, usage, usageEstimated: estimated, billReservation, units, channel, upstreamModel: attempt.upstreamModel, builtInToolCalls });
  const body = codec.renderWhole ? codec.renderWhole(answer, usage, estimated) : answer.body;
  const contentType = answer.contentType ?? "application/json";
  if (cachePlan) await storeAnswer(services.responseCache, services.log, cachePlan, contentType, body);
  return new Response(body, { status: 200, headers: { "content-type": contentType, ...record.answerHeaders() } });
}

/** One call of each requested built-in tool, for an endpoint whose answers do not report their tool calls. */
function perAnswerToolCalls(parsed: ParsedCall<unknown>): BuiltInToolCalls | undefined {
  if (!parsed.builtInToolsPerAnswer || !parsed.builtInTools?.length) return undefined;
  const calls: BuiltInToolCalls = {};
  for (const tool of parsed.builtInTools) calls[tool.family] = 1;
  return calls;
}

/**
 * What a call whose answer was cut by the byte cap is billed: the upstream produced more than the cap, so
 * at least the worst case held for it (the prompt's local count, and the most the answer could take).
 */
async function reservedUsage<Parsed>(codec: Codec<Parsed, unknown, WholeAnswer>, parsed: ParsedCall<Parsed>, worstCaseCompletionTokens: number): Promise<TokenUsage> {
  const prompt = await codec.estimateUsage(parsed.request, "").catch(() => null);
  return { promptTokens: prompt?.promptTokens ?? 0, completionTokens: worstCaseCompletionTokens, cachedTokens: 0 };
}

/**
 * The usage stage of a stream: the upstream's usage when it came, otherwise a local count of what was
 * produced; when that count cannot be made, the reservation (`requestBytes` only gives the log row its
 * rough prompt size).
 */
function streamSink<Parsed, Translation>(
  services: GatewayServices,
  record: CallRecord,
  request: Request,
  codec: Codec<Parsed, Translation, WholeAnswer>,
  parsed: ParsedCall<Parsed>,
  forwarded: ForwardedResponse<Translation>,
  watch: AnswerWatch | undefined,
  requestBytes: number,
): StreamSink {
  return {
    idleTimeoutMs: forwarded.channel.config.idleTimeoutMs ?? services.options.streamIdleTimeoutMs,
    maxEventBytes: services.options.upstreamMaxEventBytes,
    maxBodyBytes: services.options.upstreamMaxBodyBytes,
    firstByte: () => record.markFirstByte(),
    costOf: (usage) => record.costOf(usage, { unit: "request" }) + builtInToolFee(forwarded.channel.config, perAnswerToolCalls(parsed)),
    end(reported, usage: TokenUsage | null, produced, measured, reportedToolCalls) {
      // Aborting the upstream for a departed client surfaces as a read error: it is still a cancel.
      const outcome = reported !== "completed" && request.signal.aborted ? "cancelled" : reported;
      // The relay reports its end as it hands over its last chunk (the closing or error frame).
      if (outcome !== "cancelled") watch?.drained();
      const { status, errorCode } = outcomeStatus(outcome);
      if (outcome === "too_large") {
        // An event past the cap is the upstream's doing: counted against the channel, like a failed call.
        services.health.recordFailure(forwarded.channel.id);
        services.metrics?.upstreamError(forwarded.channel.id, "too_large");
      }
      // A stream that completed is one request served, unless it measured another unit.
      const units = measured ?? (outcome === "completed" ? { unit: "request" as const } : null);
      const builtInToolCalls = reportedToolCalls ?? (outcome === "completed" ? perAnswerToolCalls(parsed) : undefined);
      const base = { status, units, channel: forwarded.channel, upstreamModel: forwarded.attempt.upstreamModel, errorCode, stream: true, builtInToolCalls };
      if (usage) {
        record.finish({ ...base, usage });
        return;
      }
      const text = produced();
      codec.estimateUsage(parsed.request, text).then(
        (estimate) => record.finish({ ...base, usage: estimate, usageEstimated: true }),
        (error: unknown) => {
          services.log("warn", "usage could not be counted; billing the reservation", { requestId: record.requestId, error: String(error) });
          record.finish({ ...base, usage: uncountedUsage(requestBytes, text), usageEstimated: true, billReservation: true });
        },
      );
    },
  };
}
