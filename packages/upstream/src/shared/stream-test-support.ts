import type { TokenUsage } from "@tollgate/shared";
import type { EventSourceMessage } from "eventsource-parser";
import type { ChatStreamPart } from "../provider-adapter";
import { EventSourceParserStream } from "eventsource-parser/stream";

async function collect<Item>(readable: ReadableStream<Item>): Promise<Item[]> {
  const items: Item[] = [];
  const reader = readable.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return items;
    items.push(value);
  }
}

/**
 * Test support for the stream translations (imported by tests only): SSE text -> the EventSourceMessage
 * objects the gateway's own pipeline produces (bytes -> TextDecoderStream -> EventSourceParserStream).
 */
export function parseSseText(text: string): Promise<EventSourceMessage[]> {
  return collect(
    new Response(text)
      .body!.pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>)
      .pipeThrough(new EventSourceParserStream()),
  );
}

/** A stream that yields `items` and ends. */
export function streamOf<Item>(items: Item[]): ReadableStream<Item> {
  return new ReadableStream<Item>({
    start(controller) {
      for (const item of items) controller.enqueue(item);
      controller.close();
    },
  });
}

/** Feeds `inputs` through `transform` and collects everything it emits; rejects with the transform's error. */
export function runTransform<Input, Output>(inputs: Input[], transform: TransformStream<Input, Output>): Promise<Output[]> {
  return collect(streamOf(inputs).pipeThrough(transform));
}

/** A chat stream transformer's parts, as the chunks the client is sent and the usage reported for accounting. */
export function splitParts(parts: ChatStreamPart[]): { chunks: Record<string, unknown>[]; usages: TokenUsage[] } {
  const chunks: Record<string, unknown>[] = [];
  const usages: TokenUsage[] = [];
  for (const part of parts) {
    if (part.type === "chunk") chunks.push(part.chunk);
    else usages.push(part.usage);
  }
  return { chunks, usages };
}
