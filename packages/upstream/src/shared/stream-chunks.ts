import type { ChatStreamPart } from "../provider-adapter";

/** A stream event's JSON payload; an event that is not JSON ends the stream with `notJson` (never the payload). */
export function parseEventData<T = Record<string, any>>(data: string, notJson: string): T {
  try {
    return JSON.parse(data) as T;
  } catch {
    throw new Error(notJson);
  }
}

/**
 * The chunk parts of a completion streamed as one choice (index 0), for transformers that build OpenAI
 * chunks from another wire format: each stamped with the completion's id (read per chunk, since Anthropic
 * learns it from message_start), the stream's creation time and the public model.
 */
export function oneChoiceChunks(completion: { id: () => string; model: unknown }) {
  const created = Math.floor(Date.now() / 1000);
  const { model } = completion;
  return {
    /** A delta of choice 0, with its finish_reason on the last one. */
    delta(delta: Record<string, unknown>, finishReason: string | null = null): ChatStreamPart {
      return {
        type: "chunk",
        chunk: { id: completion.id(), object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] },
      };
    },
    /** The closing chunk `stream_options.include_usage` asks for: no choices, the usage. */
    usage(usage: Record<string, unknown>): ChatStreamPart {
      return { type: "chunk", chunk: { id: completion.id(), object: "chat.completion.chunk", created, model, choices: [], usage } };
    },
  };
}
