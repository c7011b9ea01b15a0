import type { TokenUsage } from "@tollgate/shared";
import type { EventSourceMessage } from "eventsource-parser";
import type { AdapterDescription } from "./channel-type-descriptor";
import type { MediaBody, MediaHttpRequest, MediaOperation } from "./shared/media-parts";
import type { ModelListPages } from "./shared/model-list-page";
import type { MappedUpstreamError } from "./shared/upstream-error";

/**
 * The contract every upstream protocol folder implements (<protocol>/index.ts exports one ProviderAdapter).
 * Inputs and outputs are OpenAI shapes; the adapter owns the translation to and from its upstream's wire
 * format. Adapters are pure: no fetch, no clock reads beyond `created`, no environment variables. The
 * gateway does the HTTP, the failover, the accounting.
 */
export interface AdapterChannel {
  /** Base URL as configured, without a trailing slash (e.g. https://api.anthropic.com). */
  baseUrl: string;
  /** Decrypted upstream key. Never put it in an error message. */
  apiKey: string;
  /** Per-channel extras: e.g. { apiVersion: "2024-10-21" } for Azure, { preset: "mistral" }, extra headers. */
  config: Record<string, unknown>;
}

export interface UpstreamHttpRequest {
  url: string;
  headers: Record<string, string>;
  /** JSON text. */
  body: string;
}

export interface ChatTranslationInput {
  channel: AdapterChannel;
  /** The model id to send upstream (after the channel's mapping). */
  upstreamModel: string;
  /** The OpenAI request body as the client sent it (model not yet mapped); never mutated. */
  body: Record<string, unknown>;
  /**
   * The client's body as sent, when the caller has it: an adapter that speaks OpenAI's format forwards it
   * as is when nothing must change (no parse, no re-serialisation).
   */
  text?: string;
  stream: boolean;
  /** The client asked for `stream_options.include_usage` (so the usage chunk is its, not only the gateway's). */
  clientWantsUsage?: boolean;
}

/** A POST /v1/responses body relayed to an upstream that speaks OpenAI's Responses API itself. */
export interface ResponsesRelayInput {
  channel: AdapterChannel;
  upstreamModel: string;
  /** The Responses body as it goes upstream (the client's, or with earlier turns replayed into `input`); never mutated. */
  body: Record<string, unknown>;
  /** The client's body as sent, forwarded as is when nothing must change. */
  text?: string;
  stream: boolean;
}

export interface EmbeddingsTranslationInput {
  channel: AdapterChannel;
  upstreamModel: string;
  body: Record<string, unknown>;
  /** The client's body as sent (see ChatTranslationInput.text). */
  text?: string;
}

/** A request as it will be sent upstream. */
export interface OutgoingRequest {
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface AuthorizeContext {
  /** For a token exchange: fetchUpstream's rules (no redirects, bounded body, timeout). */
  fetch(url: string, init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal }): Promise<Response>;
  signal?: AbortSignal;
}

/** What a stream decoder is told: the most one decoded event may weigh (UPSTREAM_MAX_EVENT_BYTES). */
export interface StreamDecoderOptions {
  maxEventBytes?: number;
}

/** A client's own Anthropic Messages request (or count_tokens request), for an upstream that speaks Anthropic's API. */
export interface NativeMessagesInput {
  channel: AdapterChannel;
  upstreamModel: string;
  body: Record<string, unknown>;
  /** The client's body as sent. */
  text: string;
  /** The client's anthropic-version and anthropic-beta headers. */
  version: string | null;
  beta: string | null;
}

/** The Gemini API methods a Gemini-API client calls on a model (`/models/{model}:{method}`). */
export type GeminiMethod = "generateContent" | "streamGenerateContent" | "countTokens" | "embedContent" | "batchEmbedContents";

/** A Gemini-API client's own request, for an upstream that speaks Google's Gemini API itself. */
export interface GeminiNativeInput {
  channel: AdapterChannel;
  /** The model id to send upstream (after the channel's mapping), `models/` prefix or not. */
  upstreamModel: string;
  method: GeminiMethod;
  /** The client's body, parsed; never mutated. */
  body: Record<string, unknown>;
  /** The client's body as sent, forwarded as is when nothing must change. */
  text: string;
}

/**
 * What a chat stream transformer emits: the OpenAI chunks the client is sent, and the final usage, once,
 * for accounting (the chunk that shows usage to the client is a chunk like any other).
 */
export type ChatStreamPart = { type: "chunk"; chunk: Record<string, unknown> } | { type: "usage"; usage: TokenUsage };

/**
 * Whose tokenizer counts a model's prompt when the model's name does not say (the gateway's reservation
 * margin per family): "other" for upstreams whose models may be anyone's.
 */
export type TokenizerFamily = "openai" | "anthropic" | "gemini" | "other";

/** The media endpoints (images, audio, moderations, rerank) an upstream serves natively, relayed as they came. */
export interface MediaCapability {
  /** Whether the upstream serves the operation (channels that do not are skipped in routing). */
  serves(operation: MediaOperation): boolean;
  /** The upstream request for the operation on `deployment` (the upstream model), the body as given. */
  buildRequest(channel: AdapterChannel, deployment: string, operation: MediaOperation, body: MediaBody): MediaHttpRequest;
}

export interface ProviderAdapter {
  /** The channel type: "openai-compatible", "anthropic", "gemini", "azure-openai". */
  readonly type: string;

  /** The label, default base URL and settings the admin schemas and the console's form read (see channelTypeDescriptors). */
  readonly description: AdapterDescription;

  /**
   * The upstream speaks OpenAI's own wire format: its answers and stream bytes can be relayed to an OpenAI
   * client as they come (byte for byte), without going through translateChatResponse's object.
   */
  readonly relaysOpenAIFormat: boolean;

  /** OpenAI chat request -> upstream HTTP request. Throws TranslationError (400) for input it cannot express. */
  buildChatRequest(input: ChatTranslationInput): UpstreamHttpRequest;

  /** Optional: OpenAI legacy text completions (`/completions`), for upstreams that still serve them. */
  buildCompletionsRequest?(input: ChatTranslationInput): UpstreamHttpRequest;

  /**
   * Upstream non-streamed JSON -> OpenAI `chat.completion` object (id, object, created, model = the public
   * model the client asked for, choices[{index, message{role, content, tool_calls?}, finish_reason}], usage).
   */
  translateChatResponse(upstreamBody: unknown, input: ChatTranslationInput): { completion: Record<string, unknown>; usage: TokenUsage | null };

  /**
   * Upstream SSE events -> OpenAI `chat.completion.chunk` parts, one state machine per request (state in the
   * closure). It emits chunks in OpenAI's order: first a role chunk, content/tool-call deltas, a chunk with
   * finish_reason, and from flush() a final usage chunk (`choices: []`, `usage`) when usage is known, with a
   * usage part as soon as the final usage is known. The gateway frames chunks as SSE and appends `data: [DONE]`.
   */
  createChatStreamTransformer(input: ChatTranslationInput): TransformStream<EventSourceMessage, ChatStreamPart>;

  /** Upstream error status + body text -> the error relayed, classified for failover (the key scrubbed). */
  mapError(status: number, bodyText: string, channel: AdapterChannel): MappedUpstreamError;

  /**
   * Optional, with buildResponsesRequest the Responses capability (a type that has both takes the channel
   * setting `responsesApi`): the channel speaks OpenAI's Responses API (POST /responses), per its
   * `config.responsesApi` or the default of its preset; when false or absent, /v1/responses is translated
   * through chat.
   */
  speaksResponsesApi?(channel: AdapterChannel): boolean;
  /** Optional: a Responses request relayed natively (answers and events come back in the Responses format). */
  buildResponsesRequest?(input: ResponsesRelayInput): UpstreamHttpRequest;

  /**
   * Optional: the upstream speaks Anthropic's Messages API itself: a client's /v1/messages request goes as
   * it came (answers and events relayed in Anthropic's format). Absent, or null for a model the channel
   * serves through another API (Bedrock's Llama or Mistral, Vertex's Gemini models): it is translated through chat.
   */
  messages?(input: NativeMessagesInput): UpstreamHttpRequest | null;

  /**
   * Optional: the upstream counts a Messages request's input tokens itself (Anthropic's
   * /v1/messages/count_tokens): the request that asks it. Absent: the gateway counts locally, as an estimate.
   */
  countTokens?(input: NativeMessagesInput): UpstreamHttpRequest;

  /**
   * Optional: the upstream speaks Google's Gemini API itself: a Gemini-API client's request goes as it came
   * (stream as SSE, alt=sse). Null for a model or method the upstream serves only through another protocol
   * (Vertex's Claude models, its embeddings): the request is translated as for a type without it.
   */
  geminiNative?(input: GeminiNativeInput): UpstreamHttpRequest | null;

  /** Optional: who /v1/models says owns a model served by this type's channels (`owned_by`); the channel type when absent. */
  readonly ownedBy?: string;

  /** Optional: OpenAI embeddings request -> upstream request. */
  buildEmbeddingsRequest?(input: EmbeddingsTranslationInput): UpstreamHttpRequest;
  /** Optional: the upstream's embeddings answer -> OpenAI's shape; absent when the upstream answers in it already. */
  translateEmbeddingsResponse?(
    upstreamBody: unknown,
    input: { upstreamModel: string; body: Record<string, unknown> },
  ): { response: Record<string, unknown>; usage: TokenUsage | null };

  /** Optional: images, audio, moderations, rerank relayed natively; absent: the type serves none of them. */
  readonly media?: MediaCapability;

  /**
   * Optional: the model ids the upstream lists for a key (duplicates and order do not matter), fetched page
   * by page through `pages`; throws ListingFailure for an answer that is not a model list. Absent: the type
   * has no list call a key can make (description.cannotListModelsReason says why).
   */
  listModels?(channel: AdapterChannel, pages: ModelListPages): Promise<string[]>;

  /** Optional: the tokenizer family of the type's models, when a model's name does not tell; absent: "other". */
  readonly tokenizer?: TokenizerFamily;

  /**
   * Optional: signs or authorizes a request this adapter built, just before it is sent (SigV4; an OAuth
   * access token). Absent: sent as built. Called for every request of the type (chat, stream, messages,
   * embeddings, count, probe, model list). A credential it cannot use throws ChannelCredentialError.
   */
  authorize?(request: OutgoingRequest, channel: AdapterChannel, context: AuthorizeContext): Promise<OutgoingRequest>;

  /**
   * Optional: decodes the upstream's stream body into events when it is not SSE (AWS event-stream); absent:
   * SSE. An event past `maxEventBytes` errors the stream with UpstreamResponseTooLargeError.
   */
  createStreamDecoder?(options?: StreamDecoderOptions): TransformStream<Uint8Array, EventSourceMessage>;

  /**
   * Optional: why a channel key cannot be a credential of this type (a Bedrock key that is neither an access
   * key JSON nor an API key), said to the admin who saves it; null when it can. Absent: any non-empty key.
   */
  credentialProblem?(key: string): string | null;
}

/**
 * The channel's stored credential cannot be used (malformed, or refused by a token exchange): the channel's
 * fault, answered 502 and failed over, never with the secret in the message.
 */
export class ChannelCredentialError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChannelCredentialError";
  }
}

/**
 * A request the adapter cannot express for its upstream: answered 400 invalid_request_error with `code`
 * (`invalid_value` for a malformed value, `unsupported_parameter` for a valid one this upstream cannot carry).
 */
export class TranslationError extends Error {
  constructor(
    message: string,
    readonly param: string | null = null,
    readonly code: "invalid_value" | "unsupported_parameter" = "invalid_value",
  ) {
    super(message);
  }
}
