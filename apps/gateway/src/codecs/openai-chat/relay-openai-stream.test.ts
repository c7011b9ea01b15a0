import { describe, expect, test } from "bun:test";
import type { TokenUsage } from "@tollgate/shared";
import type { ChatTranslationInput } from "@tollgate/upstream";
import type { StreamSink } from "../../pipeline/codec";
import type { ForwardedResponse } from "../../routing/forward-with-failover";
import { KEPT_EVENT_BYTES, relayOpenAIStream } from "./relay-openai-stream";

const encoder = new TextEncoder();

function contentEvent(index: number): string {
  return `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: `w${index} ` } }] })}\n\n`;
}

/** An upstream that speaks OpenAI's format, sending `events` one read each. */
function forwardedOf(events: string[]): ForwardedResponse<ChatTranslationInput> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const event of events) controller.enqueue(encoder.encode(event));
      controller.close();
    },
  });
  return {
    response: new Response(body),
    adapter: { relaysOpenAIFormat: true },
    abort: () => {},
  } as unknown as ForwardedResponse<ChatTranslationInput>;
}

async function relayed(events: string[]): Promise<{ usage: TokenUsage | null; produced: string; relayedText: string }> {
  let ended: { usage: TokenUsage | null; produced: () => string } | null = null;
  const sink: StreamSink = {
    idleTimeoutMs: 60_000,
    firstByte: () => {},
    costOf: () => 0,
    end: (_outcome, usage, produced) => {
      ended = { usage, produced };
    },
  };
  const relayedText = await new Response(relayOpenAIStream(forwardedOf(events), false, sink)).text();
  const end = ended as { usage: TokenUsage | null; produced: () => string } | null;
  if (!end) throw new Error("the relay never reported its end");
  return { usage: end.usage, produced: end.produced(), relayedText };
}

describe("relayOpenAIStream", () => {
  test("a stream longer than what is kept for a local count still yields all the text it produced, in order", async () => {
    const count = Math.ceil((KEPT_EVENT_BYTES * 3) / contentEvent(0).length);
    const events = Array.from({ length: count }, (_, index) => contentEvent(index));
    const { usage, produced, relayedText } = await relayed([...events, "data: [DONE]\n\n"]);
    expect(usage).toBeNull();
    expect(produced).toBe(Array.from({ length: count }, (_, index) => `w${index} `).join(""));
    expect(relayedText).toBe(`${events.join("")}data: [DONE]\n\n`);
  });

  test("a stream whose upstream reports usage bills that usage and passes every event through", async () => {
    const events = [contentEvent(0), contentEvent(1)];
    const usageEvent = `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } })}\n\n`;
    const { usage, relayedText } = await relayed([...events, usageEvent, "data: [DONE]\n\n"]);
    expect(usage?.promptTokens).toBe(5);
    expect(usage?.completionTokens).toBe(2);
    expect(relayedText).toBe(`${events.join("")}data: [DONE]\n\n`);
  });
});
