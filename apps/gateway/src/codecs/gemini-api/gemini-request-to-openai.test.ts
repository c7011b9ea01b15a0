import { describe, expect, test } from "bun:test";
import { TranslationError } from "@tollgate/upstream";
import { geminiRequestToOpenAI } from "./gemini-request-to-openai";
import { createOpenAIToGeminiStream, type GeminiStreamState } from "./openai-stream-to-gemini";

const user = (text: string) => ({ role: "user", parts: [{ text }] });

function refusal(body: Record<string, unknown>): TranslationError {
  try {
    geminiRequestToOpenAI(body, "m", false);
  } catch (error) {
    if (error instanceof TranslationError) return error;
    throw error;
  }
  throw new Error("not refused");
}

describe("geminiRequestToOpenAI", () => {
  test("maps generationConfig's sampling, limits, stops, candidates and thinking budget to chat fields", () => {
    const body = geminiRequestToOpenAI(
      {
        contents: [user("Hi")],
        generationConfig: { temperature: 0.3, topP: 0.9, topK: 40, maxOutputTokens: 100, stopSequences: ["x"], candidateCount: 2, seed: 7, thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } },
      },
      "m",
      true,
    );
    expect(body).toEqual({
      model: "m",
      messages: [{ role: "user", content: "Hi" }],
      temperature: 0.3,
      top_p: 0.9,
      top_k: 40,
      max_tokens: 100,
      stop: ["x"],
      n: 2,
      seed: 7,
      reasoning_effort: "medium",
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  test("turns inline images into data URLs and keeps thought parts of earlier model turns out", () => {
    const body = geminiRequestToOpenAI(
      {
        contents: [
          { role: "user", parts: [{ text: "What is it?" }, { inlineData: { mimeType: "image/png", data: "iVBOR" } }] },
          { role: "model", parts: [{ text: "thinking...", thought: true }, { text: "A cat." }] },
        ],
      },
      "m",
      false,
    );
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "What is it?" }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBOR" } }] },
      { role: "assistant", content: "A cat." },
    ]);
  });

  test("pairs a functionResponse with its call by id, else with the oldest unanswered call of its name", () => {
    const body = geminiRequestToOpenAI(
      {
        contents: [
          user("Two lookups"),
          { role: "model", parts: [{ functionCall: { name: "f", args: { a: 1 } } }, { functionCall: { id: "given", name: "f", args: { a: 2 } } }] },
          { role: "user", parts: [{ functionResponse: { id: "given", name: "f", response: { r: 2 } } }, { functionResponse: { name: "f", response: { r: 1 } } }] },
        ],
      },
      "m",
      false,
    );
    const messages = body.messages as any[];
    const [first, second] = messages[1].tool_calls;
    expect(second.id).toBe("given");
    expect(messages[2]).toEqual({ role: "tool", tool_call_id: "given", content: '{"r":2}' });
    expect(messages[3]).toEqual({ role: "tool", tool_call_id: first.id, content: '{"r":1}' });
  });

  test("refuses a functionResponse that answers no call", () => {
    expect(refusal({ contents: [{ role: "user", parts: [{ functionResponse: { name: "f", response: {} } }] }] }).param).toBe("contents[0].parts[0]");
  });

  test("refuses what only Gemini carries, naming it, instead of dropping it", () => {
    expect(refusal({ contents: [user("Hi")], cachedContent: "cachedContents/1" })).toMatchObject({ param: "cachedContent", code: "unsupported_parameter" });
    expect(refusal({ contents: [user("Hi")], tools: [{ codeExecution: {} }] })).toMatchObject({ param: "tools[0].codeExecution", code: "unsupported_parameter" });
    expect(refusal({ contents: [user("Hi")], generationConfig: { speechConfig: {} } })).toMatchObject({ param: "generationConfig.speechConfig", code: "unsupported_parameter" });
    expect(refusal({ contents: [{ role: "user", parts: [{ fileData: { fileUri: "https://generativelanguage.googleapis.com/v1beta/files/x", mimeType: "video/mp4" } }] }] })).toMatchObject({
      code: "unsupported_parameter",
    });
  });

  test("turns Google's Schema (capital types, nullable) into JSON Schema for structured output", () => {
    const body = geminiRequestToOpenAI(
      {
        contents: [user("Hi")],
        generationConfig: { responseMimeType: "application/json", responseSchema: { type: "ARRAY", items: { type: "STRING", nullable: true }, propertyOrdering: [] } },
      },
      "m",
      false,
    );
    expect(body.response_format).toEqual({ type: "json_schema", json_schema: { name: "response", schema: { type: "array", items: { type: ["string", "null"] } } } });
  });
});

async function streamed(parts: unknown[]): Promise<{ events: Record<string, any>[]; state: GeminiStreamState }> {
  const state: GeminiStreamState = { usage: null, produced: [] };
  const events: Record<string, any>[] = [];
  const source = new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
  for await (const event of source.pipeThrough(createOpenAIToGeminiStream("m", state) as any) as any) events.push(event);
  return { events, state };
}

describe("createOpenAIToGeminiStream", () => {
  test("sends text as it comes, a tool call whole at its finish, and usage on the last event", async () => {
    const chunk = (delta: unknown, finish: string | null = null) => ({ type: "chunk", chunk: { id: "c1", choices: [{ index: 0, delta, finish_reason: finish }] } });
    const { events, state } = await streamed([
      chunk({ role: "assistant", content: "Hel" }),
      chunk({ content: "lo" }),
      chunk({ tool_calls: [{ index: 0, id: "call_1", function: { name: "f", arguments: '{"a"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: ":1}" } }] }),
      chunk({}, "tool_calls"),
      { type: "usage", usage: { promptTokens: 5, completionTokens: 3, cachedTokens: 2 } },
    ]);
    expect(events.map((event) => event.candidates[0]?.content?.parts)).toEqual([[{ text: "Hel" }], [{ text: "lo" }], [{ functionCall: { id: "call_1", name: "f", args: { a: 1 } } }]]);
    expect(events.at(-1)).toMatchObject({
      candidates: [{ finishReason: "STOP" }],
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 3, totalTokenCount: 8, cachedContentTokenCount: 2 },
      responseId: "c1",
    });
    expect(state.usage).toEqual({ promptTokens: 5, completionTokens: 3, cachedTokens: 2 });
  });

  test("reports a call whose arguments are not JSON as MALFORMED_FUNCTION_CALL", async () => {
    const { events } = await streamed([
      { type: "chunk", chunk: { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "x", function: { name: "f", arguments: "{oops" } }] }, finish_reason: "tool_calls" }] } },
    ]);
    expect(events.at(-1)!.candidates[0].finishReason).toBe("MALFORMED_FUNCTION_CALL");
  });
});
