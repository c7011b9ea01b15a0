import { describe, expect, test } from "bun:test";
import type { ChatTranslationInput } from "../provider-adapter";
import { buildAnthropicRequest } from "./build-request";
import { translationErrorOf } from "../shared/translation-test-support";

const channel = { baseUrl: "https://api.anthropic.com", apiKey: "sk-ant-test-key", config: {} };

function input(body: Record<string, unknown>, overrides: Partial<ChatTranslationInput> = {}): ChatTranslationInput {
  return { channel, upstreamModel: "claude-sonnet-4-5-20250929", body: { model: "claude-sonnet", ...body }, stream: false, ...overrides };
}

function upstreamBody(body: Record<string, unknown>, overrides: Partial<ChatTranslationInput> = {}): Record<string, unknown> {
  return JSON.parse(buildAnthropicRequest(input(body, overrides)).body);
}

describe("buildAnthropicRequest", () => {
  test("posts to /v1/messages with the channel key, the API version and the upstream model", () => {
    const request = buildAnthropicRequest(input({ messages: [{ role: "user", content: "Hello" }] }));
    expect({ ...request, body: JSON.parse(request.body) }).toMatchInlineSnapshot(`
      {
        "body": {
          "max_tokens": 4096,
          "messages": [
            {
              "content": "Hello",
              "role": "user",
            },
          ],
          "model": "claude-sonnet-4-5-20250929",
        },
        "headers": {
          "anthropic-version": "2023-06-01",
          "content-type": "application/json",
          "x-api-key": "sk-ant-test-key",
        },
        "url": "https://api.anthropic.com/v1/messages",
      }
    `);
  });

  test("merges the channel's extra headers and tolerates a base URL that already ends in /v1", () => {
    const request = buildAnthropicRequest(
      input(
        { messages: [{ role: "user", content: "Hello" }] },
        { channel: { ...channel, baseUrl: "https://gateway.example/anthropic/v1/", config: { headers: { "anthropic-beta": "prompt-caching-2024-07-31" } } } },
      ),
    );
    expect(request.url).toBe("https://gateway.example/anthropic/v1/messages");
    expect(request.headers["anthropic-beta"]).toBe("prompt-caching-2024-07-31");
    expect(request.headers["x-api-key"]).toBe("sk-ant-test-key");
  });

  test("lifts system and developer messages into one top-level system string", () => {
    expect(
      upstreamBody({
        messages: [
          { role: "system", content: "You are a helpful assistant." },
          { role: "developer", content: [{ type: "text", text: "Answer in French." }] },
          { role: "user", content: "Hello" },
        ],
      }),
    ).toEqual({
      model: "claude-sonnet-4-5-20250929",
      max_tokens: 4096,
      system: "You are a helpful assistant.\n\nAnswer in French.",
      messages: [{ role: "user", content: "Hello" }],
    });
  });

  test("keeps system text blocks when a part carries cache_control", () => {
    expect(
      upstreamBody({
        messages: [
          { role: "system", content: [{ type: "text", text: "A long, stable preamble.", cache_control: { type: "ephemeral" } }] },
          { role: "user", content: "Hello" },
        ],
      }).system,
    ).toMatchInlineSnapshot(`
      [
        {
          "cache_control": {
            "type": "ephemeral",
          },
          "text": "A long, stable preamble.",
          "type": "text",
        },
      ]
    `);
  });

  test("merges consecutive messages of the same role so that turns alternate", () => {
    expect(
      upstreamBody({
        messages: [
          { role: "user", content: "First question." },
          { role: "user", content: "Second question." },
          { role: "assistant", content: "One answer." },
          { role: "assistant", content: "" },
          { role: "user", content: "Thanks." },
        ],
      }).messages,
    ).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "text": "First question.",
              "type": "text",
            },
            {
              "text": "Second question.",
              "type": "text",
            },
          ],
          "role": "user",
        },
        {
          "content": "One answer.",
          "role": "assistant",
        },
        {
          "content": "Thanks.",
          "role": "user",
        },
      ]
    `);
  });

  test("defaults max_tokens to 4096 and prefers max_completion_tokens over max_tokens", () => {
    expect(upstreamBody({ messages: [{ role: "user", content: "Hi" }] }).max_tokens).toBe(4096);
    expect(upstreamBody({ messages: [{ role: "user", content: "Hi" }], max_tokens: 100 }).max_tokens).toBe(100);
    expect(upstreamBody({ messages: [{ role: "user", content: "Hi" }], max_tokens: 100, max_completion_tokens: 200 }).max_tokens).toBe(200);
  });

  test("clamps temperature to Anthropic's 0..1 and carries stop, stream and user", () => {
    const body = upstreamBody(
      { messages: [{ role: "user", content: "Hi" }], temperature: 1.6, stop: "END", user: "user-42", stream: true },
      { stream: true },
    );
    expect(body).toMatchInlineSnapshot(`
      {
        "max_tokens": 4096,
        "messages": [
          {
            "content": "Hi",
            "role": "user",
          },
        ],
        "metadata": {
          "user_id": "user-42",
        },
        "model": "claude-sonnet-4-5-20250929",
        "stop_sequences": [
          "END",
        ],
        "stream": true,
        "temperature": 1,
      }
    `);
    expect(upstreamBody({ messages: [{ role: "user", content: "Hi" }], stop: ["a", "b"], temperature: -1 })).toMatchObject({
      stop_sequences: ["a", "b"],
      temperature: 0,
    });
  });

  test("sends top_p only without temperature, since current Claude models refuse both together", () => {
    expect(upstreamBody({ messages: [{ role: "user", content: "Hi" }], top_p: 0.9 })).toMatchObject({ top_p: 0.9 });
    const both = upstreamBody({ messages: [{ role: "user", content: "Hi" }], temperature: 0.7, top_p: 0.9 });
    expect(both.temperature).toBe(0.7);
    expect(both).not.toHaveProperty("top_p");
  });

  test("translates function tools and every form of tool_choice", () => {
    const tools = [
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Get the current weather in a given location",
          parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
        },
      },
    ];
    const messages = [{ role: "user", content: "Weather in Paris?" }];
    expect(upstreamBody({ messages, tools, tool_choice: "auto" })).toMatchInlineSnapshot(`
      {
        "max_tokens": 4096,
        "messages": [
          {
            "content": "Weather in Paris?",
            "role": "user",
          },
        ],
        "model": "claude-sonnet-4-5-20250929",
        "tool_choice": {
          "type": "auto",
        },
        "tools": [
          {
            "description": "Get the current weather in a given location",
            "input_schema": {
              "properties": {
                "location": {
                  "type": "string",
                },
              },
              "required": [
                "location",
              ],
              "type": "object",
            },
            "name": "get_weather",
          },
        ],
      }
    `);
    expect(upstreamBody({ messages, tools, tool_choice: "required" }).tool_choice).toEqual({ type: "any" });
    expect(upstreamBody({ messages, tools, tool_choice: "none" }).tool_choice).toEqual({ type: "none" });
    expect(upstreamBody({ messages, tools, tool_choice: { type: "function", function: { name: "get_weather" } } }).tool_choice).toEqual({
      type: "tool",
      name: "get_weather",
    });
    expect(upstreamBody({ messages, tools, parallel_tool_calls: false }).tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
    expect(upstreamBody({ messages, tools, tool_choice: "required", parallel_tool_calls: false }).tool_choice).toEqual({
      type: "any",
      disable_parallel_tool_use: true,
    });
    expect(upstreamBody({ messages, tool_choice: "auto" })).not.toHaveProperty("tool_choice");
  });

  test("turns assistant tool calls into tool_use blocks and tool messages into one user turn of tool_result blocks", () => {
    expect(
      upstreamBody({
        messages: [
          { role: "user", content: "Weather in Paris and in Bogotá?" },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"location":"Paris, France"}' } },
              { id: "call_2", type: "function", function: { name: "get_weather", arguments: '{"location":"Bogotá, Colombia"}' } },
            ],
          },
          { role: "tool", tool_call_id: "call_1", content: "18°C, cloudy" },
          { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "24°C, sunny" }] },
          { role: "user", content: "Which is warmer?" },
        ],
      }).messages,
    ).toMatchInlineSnapshot(`
      [
        {
          "content": "Weather in Paris and in Bogotá?",
          "role": "user",
        },
        {
          "content": [
            {
              "id": "call_1",
              "input": {
                "location": "Paris, France",
              },
              "name": "get_weather",
              "type": "tool_use",
            },
            {
              "id": "call_2",
              "input": {
                "location": "Bogotá, Colombia",
              },
              "name": "get_weather",
              "type": "tool_use",
            },
          ],
          "role": "assistant",
        },
        {
          "content": [
            {
              "content": "18°C, cloudy",
              "tool_use_id": "call_1",
              "type": "tool_result",
            },
            {
              "content": [
                {
                  "text": "24°C, sunny",
                  "type": "text",
                },
              ],
              "tool_use_id": "call_2",
              "type": "tool_result",
            },
            {
              "text": "Which is warmer?",
              "type": "text",
            },
          ],
          "role": "user",
        },
      ]
    `);
  });

  test("sends data: URL images as base64 sources and http(s) images as url sources", () => {
    expect(
      upstreamBody({
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "Compare these." },
              { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
              { type: "image_url", image_url: { url: "https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg", detail: "high" } },
            ],
          },
        ],
      }).messages,
    ).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "text": "Compare these.",
              "type": "text",
            },
            {
              "source": {
                "data": "iVBORw0KGgo=",
                "media_type": "image/png",
                "type": "base64",
              },
              "type": "image",
            },
            {
              "source": {
                "type": "url",
                "url": "https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg",
              },
              "type": "image",
            },
          ],
          "role": "user",
        },
      ]
    `);
  });

  test("refuses what Anthropic cannot express, naming the parameter", () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ messages: [{ role: "user", content: "Hi" }], n: 2 }, "n"],
      [{ messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "", format: "wav" } }] }] }, "messages[0].content[0]"],
      [{ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/bmp;base64,Qk0=" } }] }] }, "messages[0].content[0].image_url.url"],
      [{ messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{oops" } }] }] }, "messages[0].tool_calls[0].function.arguments"],
      [{ messages: [{ role: "function", name: "f", content: "x" }] }, "messages[0].role"],
      [{ messages: [{ role: "tool", content: "x" }] }, "messages[0].tool_call_id"],
      [{ messages: [{ role: "user", content: "Hi" }], tools: [{ type: "web_search_preview" }] }, "tools[0]"],
    ];
    for (const [body, param] of cases) expect(translationErrorOf(() => buildAnthropicRequest(input(body))).param).toBe(param);
  });
});
