import type { TokenUsage } from "@tollgate/shared";
import type { ChatStreamPart, ChatTranslationInput } from "@tollgate/upstream";
import type { ForwardedResponse } from "../../routing/forward-with-failover";
import { parseEventStream } from "../../streaming/parse-event-stream";
import { collectChunkText } from "./produced-text";

/**
 * A translating channel's stream as its adapter's chat parts: OpenAI chunks, and the usage part once known
 * (each upstream event capped at `maxEventBytes`, or the default cap).
 */
export function adapterChatParts(forwarded: ForwardedResponse<ChatTranslationInput>, maxEventBytes: number | undefined): ReadableStream<ChatStreamPart> {
  return parseEventStream(forwarded.response.body!, maxEventBytes).pipeThrough(forwarded.adapter.createChatStreamTransformer(forwarded.attempt.translation));
}

/**
 * What a translated stream showed as it passed, for the sink at its end: the adapter's usage part (the
 * figure billed) and the text produced (counted locally when no usage came).
 */
export class ChatStreamTally {
  usage: TokenUsage | null = null;
  readonly produced: string[] = [];
  /** The text produced so far (a function the sink calls only when it must count). */
  readonly text = (): string => this.produced.join("");
}

/** adapterChatParts, each tallied into `tally` as it passes on unchanged (one TransformStream a stream). */
export function tallyAdapterChatParts(
  forwarded: ForwardedResponse<ChatTranslationInput>,
  maxEventBytes: number | undefined,
  tally: ChatStreamTally,
): ReadableStream<ChatStreamPart> {
  return adapterChatParts(forwarded, maxEventBytes).pipeThrough(
    new TransformStream<ChatStreamPart, ChatStreamPart>({
      transform(part, controller) {
        if (part.type === "usage") tally.usage = part.usage;
        else collectChunkText(part.chunk, tally.produced);
        controller.enqueue(part);
      },
    }),
  );
}
