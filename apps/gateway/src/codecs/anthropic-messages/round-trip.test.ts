import { describe, expect, test } from "bun:test";
import { anthropicFixtureJson, anthropicFixtureText } from "../../../../../test/fixtures/anthropic";
import { anthropicAdapter } from "@tollgate/upstream";
import type { AnthropicMessage } from "@tollgate/upstream";
import { parseSseText, runTransform } from "@tollgate/upstream/stream-test-support";
import { anthropicRequestToOpenAI } from "./anthropic-request-to-openai";
import { openAIResponseToAnthropic } from "./openai-response-to-anthropic";
import { createOpenAIToAnthropicStream } from "./openai-stream-to-anthropic";

const channel = { baseUrl: "https://api.anthropic.com", apiKey: "sk-ant-test-key", config: {} };

const translationInput = {
  channel,
  upstreamModel: "claude-sonnet-4-5-20250929",
  body: { model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hello" }] },
  stream: true,
};

/** Builds the final message from Anthropic stream events the way @anthropic-ai/sdk's MessageStream accumulates them. */
function accumulate(events: Array<Record<string, any>>): Record<string, any> {
  let message: Record<string, any> = {};
  const json: string[] = [];
  for (const event of events) {
    if (event.type === "message_start") message = structuredClone(event.message);
    else if (event.type === "content_block_start") message.content.push(structuredClone(event.content_block));
    else if (event.type === "content_block_delta") {
      const block = message.content[event.index];
      if (event.delta.type === "text_delta") block.text += event.delta.text;
      if (event.delta.type === "thinking_delta") block.thinking += event.delta.thinking;
      if (event.delta.type === "input_json_delta") json[event.index] = (json[event.index] ?? "") + event.delta.partial_json;
    } else if (event.type === "content_block_stop" && json[event.index]) {
      message.content[event.index].input = JSON.parse(json[event.index]!);
    } else if (event.type === "message_delta") {
      message.stop_reason = event.delta.stop_reason;
      message.stop_sequence = event.delta.stop_sequence;
      message.usage = { ...message.usage, ...event.usage };
    }
  }
  return message;
}

/** Anthropic request -> OpenAI request (messages-api) -> Anthropic request (the outbound adapter). */
function roundTrip(request: Record<string, unknown>): Record<string, unknown> {
  const openAI = anthropicRequestToOpenAI(request) as unknown as Record<string, unknown>;
  const upstream = anthropicAdapter.buildChatRequest({ channel, upstreamModel: String(request.model), body: openAI, stream: openAI.stream === true });
  return JSON.parse(upstream.body);
}

describe("Anthropic -> OpenAI -> Anthropic", () => {
  test("a multi-turn tool conversation with an image comes back unchanged", () => {
    const request = {
      model: "claude-sonnet-4-5-20250929",
      max_tokens: 1024,
      system: "You are a weather assistant.",
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
            { type: "text", text: "Where is this, and what is the weather there?" },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "text", text: "This is San Francisco. Let me check the weather." },
            { type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", input: { location: "San Francisco, CA", unit: "celsius" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_01A09q90qw90lq917835lq9", content: "15 degrees" },
            { type: "text", text: "Is that warm?" },
          ],
        },
        { role: "assistant", content: "Mild for the season." },
        { role: "user", content: "Thanks!" },
      ],
      tools: [
        {
          name: "get_weather",
          description: "Get the current weather in a given location",
          input_schema: { type: "object", properties: { location: { type: "string" }, unit: { type: "string", enum: ["celsius", "fahrenheit"] } }, required: ["location"] },
        },
      ],
      tool_choice: { type: "auto", disable_parallel_tool_use: true },
      temperature: 0.5,
      stop_sequences: ["</answer>"],
      stream: true,
      metadata: { user_id: "user_abc" },
    };
    expect(roundTrip(request)).toEqual(request);
  });

  test("forced tool choice, parallel tool results and a URL image keep their meaning", () => {
    const request = {
      model: "claude-sonnet-4-5-20250929",
      max_tokens: 256,
      messages: [
        { role: "user", content: [{ type: "image", source: { type: "url", url: "https://example.com/map.png" } }, { type: "text", text: "Weather in both cities?" }] },
        {
          role: "assistant",
          content: [
            { type: "tool_use", id: "toolu_1", name: "get_weather", input: { location: "Paris" } },
            { type: "tool_use", id: "toolu_2", name: "get_weather", input: { location: "Bogotá" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: "18°C" },
            { type: "tool_result", tool_use_id: "toolu_2", content: "24°C" },
          ],
        },
      ],
      tools: [{ name: "get_weather", input_schema: { type: "object", properties: { location: { type: "string" } } } }],
      tool_choice: { type: "tool", name: "get_weather" },
      top_p: 0.9,
    };
    expect(roundTrip(request)).toEqual(request);
  });

  test("system text blocks come back as one system string with the same text", () => {
    const request = {
      model: "claude-sonnet-4-5-20250929",
      max_tokens: 64,
      system: [
        { type: "text", text: "You are Claude Code." },
        { type: "text", text: "Be brief." },
      ],
      messages: [{ role: "user", content: [{ type: "text", text: "Hello" }] }],
    };
    expect(roundTrip(request)).toEqual({ ...request, system: "You are Claude Code.\n\nBe brief.", messages: [{ role: "user", content: "Hello" }] });
  });
});

describe("Anthropic -> OpenAI -> Anthropic responses", () => {
  test("a tool_use message survives translateChatResponse then openAIResponseToAnthropic", () => {
    const original = anthropicFixtureJson<AnthropicMessage>("message-tool-use.json");
    const { completion } = anthropicAdapter.translateChatResponse(original, { ...translationInput, stream: false });
    const back = openAIResponseToAnthropic(completion, { model: original.model });
    expect(back).toEqual(original);
  });

  test("a streamed tool_use message accumulates to the same message through both stream transformers", async () => {
    const upstreamEvents = await parseSseText(anthropicFixtureText("stream-tool-use.sse"));
    const openAIParts = await runTransform(upstreamEvents, anthropicAdapter.createChatStreamTransformer(translationInput));
    const clientEvents = await runTransform(openAIParts, createOpenAIToAnthropicStream({ model: "claude-sonnet-4-5-20250929" }));
    const original = accumulate(upstreamEvents.map((event) => JSON.parse(event.data)));
    const translated = accumulate(clientEvents.map((event) => JSON.parse(event.data)));
    expect(translated.content).toEqual(original.content);
    expect(translated).toMatchObject({ id: original.id, stop_reason: "tool_use", usage: { input_tokens: 472, output_tokens: 89 } });
  });
});
