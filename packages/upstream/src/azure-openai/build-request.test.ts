import { describe, expect, test } from "bun:test";
import type { AdapterChannel, ChatTranslationInput } from "../provider-adapter";
import { buildChatRequest } from "./build-request";

const channel: AdapterChannel = { baseUrl: "https://tollgate-test.openai.azure.com", apiKey: "test-azure-key", config: {} };

function input(body: Record<string, unknown>, stream = false, config: Record<string, unknown> = {}): ChatTranslationInput {
  return { channel: { ...channel, config }, upstreamModel: "gpt-4o-prod", body: { model: "gpt-4o", ...body }, stream };
}

describe("azure-openai buildChatRequest", () => {
  test("posts to the deployment with the default api-version and the key in api-key", () => {
    const request = buildChatRequest(input({ messages: [{ role: "user", content: "Hi" }], temperature: 0.3 }));
    expect(request.url).toMatchInlineSnapshot(`"https://tollgate-test.openai.azure.com/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21"`);
    expect(request.headers).toMatchInlineSnapshot(`
      {
        "accept": "application/json",
        "api-key": "test-azure-key",
        "content-type": "application/json",
      }
    `);
    expect(JSON.parse(request.body)).toMatchInlineSnapshot(`
      {
        "messages": [
          {
            "content": "Hi",
            "role": "user",
          },
        ],
        "model": "gpt-4o-prod",
        "temperature": 0.3,
      }
    `);
  });

  test("a stream asks for usage, keeping what the client set in stream_options", () => {
    const request = buildChatRequest(
      input({ messages: [{ role: "user", content: "Hi" }], stream: true, stream_options: { include_obfuscation: false } }, true),
    );
    expect(JSON.parse(request.body)).toMatchInlineSnapshot(`
      {
        "messages": [
          {
            "content": "Hi",
            "role": "user",
          },
        ],
        "model": "gpt-4o-prod",
        "stream": true,
        "stream_options": {
          "include_obfuscation": false,
          "include_usage": true,
        },
      }
    `);
    expect(request.headers.accept).toBe("text/event-stream");
  });

  test("a channel's apiVersion is used; versions before 2024-09-01 get no stream_options; v1 is version-less", () => {
    const pinned = buildChatRequest(input({ messages: [], stream: true, stream_options: { include_usage: true } }, true, { apiVersion: "2024-02-01" }));
    expect(pinned.url).toBe("https://tollgate-test.openai.azure.com/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-02-01");
    expect(JSON.parse(pinned.body).stream_options).toBeUndefined();
    const preview = buildChatRequest(input({ messages: [] }, true, { apiVersion: "2025-04-01-preview" }));
    expect(preview.url).toEndWith("?api-version=2025-04-01-preview");
    expect(JSON.parse(preview.body).stream_options).toEqual({ include_usage: true });
    const v1 = buildChatRequest(input({ messages: [] }, false, { apiVersion: "v1" }));
    expect(v1.url).toBe("https://tollgate-test.openai.azure.com/openai/v1/chat/completions");
    expect(JSON.parse(v1.body).model).toBe("gpt-4o-prod");
  });

  test("tools, tool calls and tool results pass through as OpenAI sent them; stream_options goes when not streaming", () => {
    const messages = [
      { role: "user", content: "Weather in Boston?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "get_current_weather", arguments: '{"location":"Boston, MA"}' } }],
      },
      { role: "tool", tool_call_id: "call_1", content: '{"temperature":22}' },
    ];
    const tools = [{ type: "function", function: { name: "get_current_weather", parameters: { type: "object", properties: {} } } }];
    const body = JSON.parse(
      buildChatRequest(input({ messages, tools, tool_choice: "auto", stream: false, stream_options: { include_usage: true } })).body,
    );
    expect(body).toEqual({ model: "gpt-4o-prod", messages, tools, tool_choice: "auto" });
  });
});
