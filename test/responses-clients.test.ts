import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { ChatOpenAI } from "@langchain/openai";
import { generateObject, generateText, streamText } from "ai";
import { z } from "zod";
import { type ResponsesStack, stackModels, startResponsesStack } from "./helpers/responses-stack";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let stack: ResponsesStack;
let secret: string;
let tokenId: number;

beforeAll(async () => {
  stack = await startResponsesStack();
  const token = await stack.seed.token({ userId: stack.userId });
  secret = token.secret;
  tokenId = token.row.id;
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.stop();
}, SETUP_TIMEOUT_MS);

/** The Vercel AI SDK's default OpenAI provider: `openai(model)` calls POST /v1/responses. */
function aiSdkModel(model: string) {
  return createOpenAI({ baseURL: stack.baseURL, apiKey: secret })(model);
}

describe("the Vercel AI SDK's default OpenAI provider (/v1/responses)", () => {
  test("generateText on a chat-only channel", async () => {
    stack.chatOnly.enqueue({ kind: "ok", content: "Hello from DeepSeek.", promptTokens: 12, completionTokens: 4 });
    const result = await generateText({ model: aiSdkModel(stackModels.chatOnly), prompt: "Say hello", maxRetries: 0 });
    expect(result.text).toBe("Hello from DeepSeek.");
    expect(result.usage).toMatchObject({ inputTokens: 12, outputTokens: 4 });
    expect(await stack.lastLog(tokenId)).toMatchObject({ endpoint: "responses", promptTokens: 12, completionTokens: 4 });
  });

  test("streamText on a chat-only channel", async () => {
    stack.chatOnly.enqueue({ kind: "ok", content: "streamed by the SDK", promptTokens: 6, completionTokens: 4 });
    const result = streamText({ model: aiSdkModel(stackModels.chatOnly), prompt: "Stream", maxRetries: 0 });
    let text = "";
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe("streamed by the SDK");
    expect(await result.usage).toMatchObject({ inputTokens: 6, outputTokens: 4 });
  });

  test("generateText and streamText on a native channel", async () => {
    stack.native.enqueue({ kind: "text", text: "Native via the SDK.", inputTokens: 10, outputTokens: 4 });
    const result = await generateText({ model: aiSdkModel(stackModels.native), prompt: "Hi", maxRetries: 0 });
    expect(result.text).toBe("Native via the SDK.");
    expect(stack.native.requests.at(-1)!.path).toBe("/v1/responses");
    stack.native.enqueue({ kind: "text", text: "Native stream via the SDK.", inputTokens: 3, outputTokens: 5 });
    const streamed = streamText({ model: aiSdkModel(stackModels.native), prompt: "Hi", maxRetries: 0 });
    let text = "";
    for await (const delta of streamed.textStream) text += delta;
    expect(text).toBe("Native stream via the SDK.");
    expect(await streamed.usage).toMatchObject({ inputTokens: 3, outputTokens: 5 });
  });

  test("generateText and streamText on an Anthropic channel", async () => {
    stack.anthropic.enqueue({ kind: "text", text: "Claude via the SDK.", inputTokens: 14, outputTokens: 4 });
    const result = await generateText({ model: aiSdkModel(stackModels.claude), prompt: "Hi", maxRetries: 0 });
    expect(result.text).toBe("Claude via the SDK.");
    stack.anthropic.enqueue({ kind: "text", text: "Claude streams via the SDK." });
    const streamed = streamText({ model: aiSdkModel(stackModels.claude), prompt: "Hi", maxRetries: 0 });
    let text = "";
    for await (const delta of streamed.textStream) text += delta;
    expect(text).toBe("Claude streams via the SDK.");
  });

  test("generateText and streamText on a Gemini channel", async () => {
    stack.gemini.enqueue({ kind: "text", text: "Gemini via the SDK.", promptTokens: 8, candidatesTokens: 4 });
    const result = await generateText({ model: aiSdkModel(stackModels.gemini), prompt: "Hi", maxRetries: 0 });
    expect(result.text).toBe("Gemini via the SDK.");
    expect(result.usage).toMatchObject({ inputTokens: 8, outputTokens: 4 });
    stack.gemini.enqueue({ kind: "text", text: "Gemini streams via the SDK." });
    const streamed = streamText({ model: aiSdkModel(stackModels.gemini), prompt: "Hi", maxRetries: 0 });
    let text = "";
    for await (const delta of streamed.textStream) text += delta;
    expect(text).toBe("Gemini streams via the SDK.");
  });

  test("generateObject on a chat-only channel sends text.format on as response_format", async () => {
    stack.chatOnly.enqueue({ kind: "ok", content: '{"city":"Paris","population":2100000}' });
    const result = await generateObject({
      model: aiSdkModel(stackModels.chatOnly),
      schema: z.object({ city: z.string(), population: z.number() }),
      prompt: "Largest city of France",
      maxRetries: 0,
    });
    expect(result.object).toEqual({ city: "Paris", population: 2100000 });
    const sent = stack.chatOnly.requests.at(-1)!.body;
    expect(sent.response_format.type).toBe("json_schema");
    expect(sent.response_format.json_schema.schema.properties).toHaveProperty("population");
  });
});

describe("LangChain's ChatOpenAI with useResponsesApi", () => {
  function langChain(model: string) {
    return new ChatOpenAI({ model, apiKey: secret, configuration: { baseURL: stack.baseURL }, useResponsesApi: true, maxRetries: 0 });
  }

  test("invoke and stream on a chat-only channel", async () => {
    stack.chatOnly.enqueue({ kind: "ok", content: "LangChain answer.", promptTokens: 7, completionTokens: 2 });
    const message = await langChain(stackModels.chatOnly).invoke("Hello");
    expect(message.text).toBe("LangChain answer.");
    expect(message.usage_metadata).toMatchObject({ input_tokens: 7, output_tokens: 2 });
    expect(stack.chatOnly.requests.at(-1)!.path).toBe("/v1/chat/completions");
    stack.chatOnly.enqueue({ kind: "ok", content: "LangChain streams." });
    let text = "";
    for await (const chunk of await langChain(stackModels.chatOnly).stream("Hello")) text += chunk.text;
    expect(text).toBe("LangChain streams.");
  });

  test("invoke on a native, an Anthropic and a Gemini channel", async () => {
    stack.native.enqueue({ kind: "text", text: "Native LangChain." });
    expect((await langChain(stackModels.native).invoke("Hi")).text).toBe("Native LangChain.");
    stack.anthropic.enqueue({ kind: "text", text: "Claude LangChain." });
    expect((await langChain(stackModels.claude).invoke("Hi")).text).toBe("Claude LangChain.");
    stack.gemini.enqueue({ kind: "text", text: "Gemini LangChain." });
    expect((await langChain(stackModels.gemini).invoke("Hi")).text).toBe("Gemini LangChain.");
  });

  test("a tool call reaches LangChain as tool_calls, from a native and from an Anthropic channel", async () => {
    const tools = [
      { type: "function" as const, function: { name: "get_time", description: "Current time", parameters: { type: "object", properties: { zone: { type: "string" } } } } },
    ];
    stack.native.enqueue({ kind: "function_call", name: "get_time", arguments: '{"zone":"UTC"}', callId: "call_time" });
    const native = await langChain(stackModels.native).bindTools(tools).invoke("What time is it?");
    expect(native.tool_calls).toEqual([expect.objectContaining({ name: "get_time", args: { zone: "UTC" }, id: "call_time" })]);
    stack.anthropic.enqueue({ kind: "tool", name: "get_time", input: { zone: "CET" } });
    const claude = await langChain(stackModels.claude).bindTools(tools).invoke("What time is it?");
    expect(claude.tool_calls).toEqual([expect.objectContaining({ name: "get_time", args: { zone: "CET" } })]);
  });
});
