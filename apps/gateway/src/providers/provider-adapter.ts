import type { TokenUsage } from "@tollgate/shared";
import type { EventSourceMessage } from "eventsource-parser";

/**
 * The contract every upstream protocol folder implements (providers/<protocol>/index.ts exports one
 * ProviderAdapter). Inputs and outputs are OpenAI chat-completions shapes; the adapter owns the translation
 * to and from its upstream's wire format. Adapters are pure: no fetch, no clock reads beyond `created`, no
 * environment variables. The gateway does the HTTP, the failover, the accounting.
 */
export interface AdapterChannel {
  /** Base URL as configured, without a trailing slash (e.g. https://api.anthropic.com). */
  baseUrl: string;
  /** Decrypted upstream key. Never put it in an error message. */
  apiKey: string;
  /** Per-channel extras: e.g. { apiVersion: "2024-10-21" } for Azure, extra headers. */
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
  /** The OpenAI chat-completions request body as the client sent it (model not yet mapped). */
  body: Record<string, unknown>;
  stream: boolean;
}

/** Translated error: the gateway wraps it in {"error":{message,type,param,code}} with `status`. */
export interface TranslatedError {
  status: number;
  message: string;
  type: string;
  code: string | null;
  param: string | null;
}

export interface ProviderAdapter {
  /** e.g. "anthropic", "gemini", "azure-openai". */
  readonly type: string;

  /** OpenAI chat request -> upstream HTTP request. Throws TranslationError (400) for input it cannot express. */
  buildChatRequest(input: ChatTranslationInput): UpstreamHttpRequest;

  /**
   * Upstream non-streamed JSON -> OpenAI `chat.completion` object (id, object, created, model = the public
   * model the client asked for, choices[{index, message{role, content, tool_calls?}, finish_reason}], usage).
   */
  translateChatResponse(upstreamBody: unknown, input: ChatTranslationInput): { completion: Record<string, unknown>; usage: TokenUsage | null };

  /**
   * Upstream SSE events -> OpenAI `chat.completion.chunk` objects, one state machine per request (state in
   * the closure). It emits chunks in OpenAI's order: first a role chunk, content/tool-call deltas, a chunk
   * with finish_reason, and from flush() a final usage chunk (`choices: []`, `usage`) when usage is known.
   * `onUsage` is called with the final usage as soon as it is known. The gateway frames chunks as SSE
   * and appends `data: [DONE]`.
   */
  createChatStreamTransformer(
    input: ChatTranslationInput,
    onUsage: (usage: TokenUsage) => void,
  ): TransformStream<EventSourceMessage, Record<string, unknown>>;

  /** Upstream error status + body text -> our error (status relayed; the key scrubbed from messages). */
  mapError(status: number, bodyText: string, channel: AdapterChannel): TranslatedError;

  /** Optional: OpenAI embeddings request -> upstream request, and the response back to OpenAI's shape. */
  buildEmbeddingsRequest?(input: { channel: AdapterChannel; upstreamModel: string; body: Record<string, unknown> }): UpstreamHttpRequest;
  translateEmbeddingsResponse?(
    upstreamBody: unknown,
    input: { upstreamModel: string; body: Record<string, unknown> },
  ): { response: Record<string, unknown>; usage: TokenUsage | null };
}

/** A request the adapter cannot express for its upstream: answered 400 invalid_request_error. */
export class TranslationError extends Error {
  constructor(
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}
