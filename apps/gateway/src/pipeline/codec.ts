import type { MeteredUnits, TokenUsage } from "@tollgate/shared";
import type { ProviderAdapter } from "@tollgate/upstream";
import type { BuiltInToolCalls, RequestedBuiltInTool } from "../accounting/built-in-tools";
import type { GatewayError } from "../errors";
import type { GatewayServices } from "../gateway-services";
import type { RoutableChannel } from "../routing/channel-catalog";
import type { ForwardedResponse, UpstreamAttempt } from "../routing/forward-with-failover";
import type { StreamOutcome } from "../streaming/relay-stream";
import type { Admission } from "./admit";
import type { CallRecord } from "./call-record";

/** What a codec made of the admitted body: the endpoint's own request, and what routing needs of it. */
export interface ParsedCall<Parsed> {
  request: Parsed;
  /**
   * The most output tokens the client asked for per answer (max_tokens, max_output_tokens): with the body's
   * size, the worst case held against quota. null when it named none: the pipeline holds the model's own
   * default (model_prices.default_max_tokens, else the global one), the same way for every endpoint. 0 for
   * an endpoint that produces no tokens.
   */
  maxOutputTokens: number | null;
  /** Answers the call asks for (chat's and images' `n`): the hold is maxOutputTokens for each. One when absent. */
  answers?: number;
  /** The client asked for a streamed answer (it gets one when the upstream streams too). */
  stream: boolean;
  /**
   * The prompt the reservation is estimated from, when it is not the client's body as sent (a Responses
   * request, whose input items and replayed history the estimator reads as chat messages).
   */
  reservationBody?: { value: Record<string, unknown>; bytes: number };
  /** The most the call can measure in a unit other than tokens: held against quota when the model is priced in it. */
  worstCaseUnits?: MeteredUnits;
  /**
   * Fee-bearing built-in tools the request asks for (accounting/built-in-tools.ts): routed only to channels
   * that allow every one (400 builtin_tool_not_allowed when none does), one call of each held at least.
   */
  builtInTools?: RequestedBuiltInTool[];
  /**
   * The upstream's answer does not report its tool calls (chat completions): each requested tool is billed
   * once per answered call.
   */
  builtInToolsPerAnswer?: boolean;
}

/** A whole (not streamed) upstream answer, as the codec read it. */
export interface WholeAnswer {
  /** The upstream's usage; null when it reported none (the usage stage then counts locally). */
  usage: TokenUsage | null;
  /** The answer for the client, in its format. */
  body: string;
  /** The answer's content type when it is not JSON (a transcript as text, srt or vtt). */
  contentType?: string;
  /** What the answer measured in a unit other than tokens (images made, audio seconds); one request when absent. */
  units?: MeteredUnits;
  /** Built-in tool calls the upstream reported (billed at the channel's price per call). */
  builtInToolCalls?: BuiltInToolCalls;
}

/**
 * Where a relayed stream reports to the exchange: its first item (time to first token) and its end, once,
 * with the upstream's usage (null when none came) and the text produced (read only when usage is missing).
 */
export interface StreamSink {
  readonly idleTimeoutMs: number;
  /** The most one upstream event may weigh (UPSTREAM_MAX_EVENT_BYTES); the parsers' default when absent. */
  readonly maxEventBytes?: number;
  /** The most a whole answer relayed as it comes (passThrough) may weigh (UPSTREAM_MAX_BODY_BYTES). */
  readonly maxBodyBytes?: number;
  firstByte(): void;
  /**
   * What a completed stream with this usage costs, in micro-USD, at the call's price: the figure finish()
   * bills, known as the usage chunk passes (so that the chunk can carry it as `usage.cost`).
   */
  costOf(usage: TokenUsage): number;
  end(outcome: StreamOutcome, usage: TokenUsage | null, produced: () => string, units?: MeteredUnits, builtInToolCalls?: BuiltInToolCalls): void;
}

/**
 * One endpoint family's part of the exchange: it parses the client's request, builds each channel's
 * upstream request through the channel's adapter, and renders answers, streams and errors in the client's
 * format. The exchange (run-exchange.ts) does everything else, the same way for every endpoint. Adding an
 * endpoint means writing a codec and one row of the endpoint table (endpoint-table.ts).
 */
export interface Codec<Parsed, Translation, Answer extends WholeAnswer = WholeAnswer> {
  /** The endpoint's name in request logs and metrics (e.g. "chat.completions"). */
  readonly endpoint: string;
  /** Whose rules the names in the body follow (validate-identifiers.ts). */
  readonly identifiers: "openai" | "anthropic";
  /** The upstream's answer is timed as the first byte even when it is an error (embeddings do so). */
  readonly timesErrorAnswers?: boolean;
  /** How admission reads the body: JSON (the default) or a multipart/form-data upload (images/edits, audio). */
  readonly bodyFormat?: "json" | "multipart";
  /** The model a request that names none is routed to (OpenAI's moderations default to omni-moderation-latest). */
  readonly defaultModel?: string;
  /**
   * The path parameter that names the model (Google's `/models/{model}:generateContent`), for bodies that
   * name none: it wins over a `model` in the body. Absent: the body's `model`.
   */
  readonly modelParam?: string;
  /** Every call streams, whatever its body says (Gemini's :streamGenerateContent, whose body has no `stream`). */
  readonly streams?: boolean;
  /** The call holds no quota and costs nothing whatever its model's price (count_tokens). */
  readonly notBilled?: boolean;
  /**
   * Answers may be served from the exact response cache (response-cache/): the answer depends only on the
   * model and the body, and holds no state (chat completions, Messages, embeddings). Absent: never cached.
   */
  readonly cacheable?: boolean;

  /**
   * Whether a channel can serve the endpoint at all (by its adapter's capabilities); channels that cannot
   * are left out by routing before any quota is held, and a call none can serve is answered 400
   * unsupported_endpoint. Absent: every channel.
   */
  serves?(channel: RoutableChannel): boolean;

  /** The endpoint's own fields (400 for what is missing or malformed), after admission. */
  parse(admission: Admission, services: GatewayServices, request: Request): ParsedCall<Parsed> | Promise<ParsedCall<Parsed>>;

  /** Optional: the routed channels reordered for this request (a follow-up goes first to the channel holding its state). */
  orderChannels?(parsed: Parsed, candidates: RoutableChannel[]): RoutableChannel[];

  /**
   * The upstream request for one channel, through its adapter; throws a GatewayError (400) for what it cannot
   * serve. A 400 unsupported_parameter or unsupported_endpoint is the channel type's gap: failover passes over
   * the channel, untried, and answers it only when no channel can carry the request.
   */
  prepare(channel: RoutableChannel, adapter: ProviderAdapter, parsed: Parsed): UpstreamAttempt<Translation>;

  /** A whole 200 answer (its body text) for the client; null when it cannot be read (502 upstream_bad_response). */
  readWhole(text: string, forwarded: ForwardedResponse<Translation>, parsed: Parsed): Answer | null;

  /** The body of a whole answer, once its billed usage is known; `answer.body` when absent. */
  renderWhole?(answer: Answer, usage: TokenUsage, estimated: boolean): string;

  /** A streamed answer relayed to the client, reporting to `sink`; absent for endpoints that never stream. */
  relay?(forwarded: ForwardedResponse<Translation>, parsed: Parsed, sink: StreamSink): ReadableStream<Uint8Array>;

  /**
   * A 200 answer whose body is relayed as it comes, whatever its content type (binary audio): the
   * upstream's content type is kept and `sink` gets its end. Absent for endpoints whose answers are read.
   */
  passThrough?(forwarded: ForwardedResponse<Translation>, parsed: Parsed, sink: StreamSink): ReadableStream<Uint8Array>;

  /** Text the model produced in a whole answer, for a local count (read only when it reported no usage). */
  producedText(answer: Answer): string;

  /** Local counts for an answer whose upstream reported no usage (or was cut short). */
  estimateUsage(parsed: Parsed, produced: string): Promise<TokenUsage>;

  /** An error answer in the client's format. */
  errorResponse(error: GatewayError, headers: Record<string, string>): Response;

  /**
   * Optional: the answer made here, finishing `record`, when no channel of the model serves the endpoint,
   * none answered, or the answer could not be read (count_tokens counts locally). Absent: those are errors.
   */
  answerLocally?(parsed: Parsed, record: CallRecord, services: GatewayServices): Promise<Response>;

  /**
   * Optional, with answerLocally: the upstream's error status (as it answered) after which the answer is made
   * here instead of relayed (count_tokens: 404/405 from an Anthropic-compatible upstream that does not count).
   */
  answersLocallyAfter?(upstreamStatus: number): boolean;
}
