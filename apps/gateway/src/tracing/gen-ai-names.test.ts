import { describe, expect, test } from "bun:test";
import { answerFacts, genAiOperationOf, genAiProviderOf, streamedFinishReasons, streamedText } from "./gen-ai-names";

describe("GenAI names", () => {
  test("endpoints map to the conventions' operation names", () => {
    expect(genAiOperationOf("chat.completions")).toBe("chat");
    expect(genAiOperationOf("messages")).toBe("chat");
    expect(genAiOperationOf("completions")).toBe("text_completion");
    expect(genAiOperationOf("embeddings")).toBe("embeddings");
  });

  test("adapter types map to the conventions' provider names", () => {
    expect(genAiProviderOf("openai-compatible")).toBe("openai");
    expect(genAiProviderOf("anthropic")).toBe("anthropic");
    expect(genAiProviderOf("bedrock")).toBe("aws.bedrock");
    expect(genAiProviderOf("vertex")).toBe("gcp.vertex_ai");
  });

  test("finish reasons and the response model are read from answers in each client format", () => {
    expect(answerFacts('{"model":"gpt-x","choices":[{"finish_reason":"stop"},{"finish_reason":"length"}]}')).toEqual({ model: "gpt-x", finishReasons: ["stop", "length"] });
    expect(answerFacts('{"type":"message","model":"claude","stop_reason":"end_turn"}')).toEqual({ model: "claude", finishReasons: ["end_turn"] });
    expect(answerFacts('{"object":"response","model":"o","status":"completed"}')).toEqual({ model: "o", finishReasons: ["completed"] });
    expect(answerFacts("not json")).toEqual({ model: null, finishReasons: [] });
  });

  test("a stream's finish reasons are read as it passes, even split between chunks, and its bytes pass unchanged", async () => {
    const reasons = new Set<string>();
    const encoder = new TextEncoder();
    const parts = ['data: {"choices":[{"delta":{"content":"Hi"},"finish_reason":null}]}\n\ndata: {"choices":[{"delta":{},"finish_re', 'ason":"length"}]}\n\n', "data: [DONE]\n\n"];
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts) controller.enqueue(encoder.encode(part));
        controller.close();
      },
    });
    const passed = await new Response(source.pipeThrough(streamedFinishReasons(reasons, () => {}))).text();
    expect(passed).toBe(parts.join(""));
    expect([...reasons]).toEqual(["length"]);
    expect(streamedText(passed)).toBe("Hi");
    expect(streamedText('event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"type":"text_delta","text":"Hello"}}\n\n')).toBe("Hello");
  });
});
