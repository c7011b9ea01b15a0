import { describe, expect, test } from "bun:test";
import type { EventSourceMessage } from "eventsource-parser";
import type { ChatTranslationInput } from "../provider-adapter";
import { runTransform, splitParts } from "../shared/stream-test-support";
import { buildAnthropicRequest } from "./build-request";
import { createAnthropicStreamTransformer } from "./stream-transformer";
import { STRUCTURED_OUTPUT_TOOL } from "./structured-output";
import { translateAnthropicResponse } from "./translate-response";
import { translationErrorOf } from "../shared/translation-test-support";

const schema = { type: "object", properties: { city: { type: "string" }, celsius: { type: "number" } }, required: ["city", "celsius"], additionalProperties: false };
const jsonSchemaFormat = { type: "json_schema", json_schema: { name: "weather", strict: true, schema } };

function input(body: Record<string, unknown>, config: Record<string, unknown> = {}, stream = false): ChatTranslationInput {
  return {
    channel: { baseUrl: "https://api.anthropic.com", apiKey: "sk-ant-test-key", config },
    upstreamModel: "claude-sonnet-4-5-20250929",
    body: { model: "claude-sonnet", messages: [{ role: "user", content: "Weather in Paris?" }], ...body },
    stream,
  };
}

function upstreamBody(body: Record<string, unknown>, config: Record<string, unknown> = {}): Record<string, any> {
  return JSON.parse(buildAnthropicRequest(input(body, config)).body);
}

function sse(type: string, data: Record<string, unknown>): EventSourceMessage {
  return { event: type, data: JSON.stringify({ type, ...data }), id: undefined } as unknown as EventSourceMessage;
}

describe("response_format on Anthropic", () => {
  test("a json_schema becomes one tool with that input schema, forced by tool_choice", () => {
    const body = upstreamBody({ response_format: jsonSchemaFormat });
    expect(body.tools).toEqual([{ name: STRUCTURED_OUTPUT_TOOL, description: expect.stringContaining("'weather'"), input_schema: schema }]);
    expect(body.tool_choice).toEqual({ type: "tool", name: STRUCTURED_OUTPUT_TOOL });
    expect(body.output_config).toBeUndefined();
  });

  test("json_object forces a tool that takes any object; text asks for nothing", () => {
    expect(upstreamBody({ response_format: { type: "json_object" } }).tools[0].input_schema).toEqual({ type: "object" });
    expect(upstreamBody({ response_format: { type: "text" } }).tools).toBeUndefined();
  });

  test("beside the client's tools the model must call one of them or the output tool", () => {
    const tools = [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: {} } } }];
    const auto = upstreamBody({ response_format: jsonSchemaFormat, tools, parallel_tool_calls: false });
    expect(auto.tools.map((tool: { name: string }) => tool.name)).toEqual(["get_weather", STRUCTURED_OUTPUT_TOOL]);
    expect(auto.tool_choice).toEqual({ type: "any", disable_parallel_tool_use: true });
    const forced = upstreamBody({ response_format: jsonSchemaFormat, tools, tool_choice: { type: "function", function: { name: "get_weather" } } });
    expect(forced.tool_choice).toEqual({ type: "tool", name: "get_weather" });
    expect(upstreamBody({ response_format: jsonSchemaFormat, tools, tool_choice: "none" }).tool_choice).toEqual({ type: "tool", name: STRUCTURED_OUTPUT_TOOL });
  });

  test("a channel with structuredOutput 'native' sends Anthropic's output_config.format instead", () => {
    const body = upstreamBody({ response_format: jsonSchemaFormat }, { structuredOutput: "native" });
    expect(body.output_config).toEqual({ format: { type: "json_schema", schema } });
    expect(body.tools).toBeUndefined();
  });

  test("malformed formats are the client's error, naming the parameter", () => {
    const cases: Array<[unknown, string]> = [
      ["json", "response_format"],
      [{ type: "xml" }, "response_format.type"],
      [{ type: "json_schema" }, "response_format.json_schema"],
      [{ type: "json_schema", json_schema: { schema } }, "response_format.json_schema.name"],
      [{ type: "json_schema", json_schema: { name: "list", schema: { type: "array" } } }, "response_format.json_schema.schema"],
    ];
    for (const [format, param] of cases) {
      const error = translationErrorOf(() => buildAnthropicRequest(input({ response_format: format })));
      expect([error.param, error.code]).toEqual([param, "invalid_value"]);
    }
    const clash = [{ type: "function", function: { name: STRUCTURED_OUTPUT_TOOL } }];
    expect(translationErrorOf(() => buildAnthropicRequest(input({ response_format: jsonSchemaFormat, tools: clash }))).param).toBe("tools");
  });

  test("the forced tool's input comes back as the message content, finished with stop", () => {
    const message = {
      id: "msg_01",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content: [{ type: "tool_use", id: "toolu_01", name: STRUCTURED_OUTPUT_TOOL, input: { city: "Paris", celsius: 18 } }],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 30, output_tokens: 12 },
    };
    const { completion } = translateAnthropicResponse(message, input({ response_format: jsonSchemaFormat }));
    const choice = (completion.choices as Array<{ message: Record<string, unknown>; finish_reason: string }>)[0]!;
    expect(JSON.parse(choice.message.content as string)).toEqual({ city: "Paris", celsius: 18 });
    expect(choice.message.tool_calls).toBeUndefined();
    expect(choice.finish_reason).toBe("stop");
  });

  test("without response_format a tool of that name stays a tool call", () => {
    const message = { id: "m", content: [{ type: "tool_use", id: "t", name: STRUCTURED_OUTPUT_TOOL, input: {} }], stop_reason: "tool_use", usage: {} };
    const { completion } = translateAnthropicResponse(message, input({}));
    expect((completion.choices as Array<{ finish_reason: string }>)[0]!.finish_reason).toBe("tool_calls");
  });

  test("a streamed forced tool's input arrives as content deltas", async () => {
    const events = [
      sse("message_start", { message: { id: "msg_01", usage: { input_tokens: 30, output_tokens: 1 } } }),
      sse("content_block_start", { index: 0, content_block: { type: "tool_use", id: "toolu_01", name: STRUCTURED_OUTPUT_TOOL, input: {} } }),
      sse("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: "" } }),
      sse("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: '{"city": "Par' } }),
      sse("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: 'is", "celsius": 18}' } }),
      sse("content_block_stop", { index: 0 }),
      sse("message_delta", { delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 12 } }),
      sse("message_stop", {}),
    ];
    const transformer = createAnthropicStreamTransformer(input({ response_format: jsonSchemaFormat, stream: true }, {}, true));
    const { chunks } = splitParts(await runTransform(events, transformer));
    const choices = chunks.flatMap((chunk) => chunk.choices as Array<{ delta: Record<string, unknown>; finish_reason: string | null }>);
    const text = choices.map((choice) => choice.delta.content ?? "").join("");
    expect(JSON.parse(text)).toEqual({ city: "Paris", celsius: 18 });
    expect(choices.some((choice) => choice.delta.tool_calls !== undefined)).toBe(false);
    expect(choices.map((choice) => choice.finish_reason).filter(Boolean)).toEqual(["stop"]);
  });
});

describe("schemas carried to Anthropic as they came", () => {
  const wide = { type: "object", properties: Object.fromEntries(Array.from({ length: 6_000 }, (_, index) => [`p${index}`, { type: "string" }])) };

  test("a response_format schema of more than 10,000 objects is a TranslationError naming it, in either mode", () => {
    for (const config of [{}, { structuredOutput: "native" }]) {
      const format = { type: "json_schema", json_schema: { name: "big", schema: { type: "object", properties: { a: wide, b: wide } } } };
      expect(() => buildAnthropicRequest(input({ response_format: format }, config))).toThrow(
        expect.objectContaining({ param: "response_format.json_schema.schema", code: "invalid_value" }),
      );
    }
  });

  test("a tool's parameters of more than 10,000 objects are a TranslationError naming that tool's parameters", () => {
    const tools = [
      { type: "function", function: { name: "small", parameters: schema } },
      { type: "function", function: { name: "big", parameters: { type: "object", properties: { a: wide, b: wide } } } },
    ];
    expect(() => buildAnthropicRequest(input({ tools }))).toThrow(expect.objectContaining({ param: "tools[1].function.parameters" }));
    expect(() => buildAnthropicRequest(input({ tools: tools.slice(0, 1) }))).not.toThrow();
  });
});
