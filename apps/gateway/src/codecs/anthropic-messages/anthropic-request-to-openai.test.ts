import { describe, expect, test } from "bun:test";
import { TranslationError } from "@tollgate/upstream";
import { anthropicRequestToOpenAI } from "./anthropic-request-to-openai";

const weatherTool = {
  name: "get_weather",
  description: "Get the current weather in a given location",
  input_schema: {
    type: "object",
    properties: { location: { type: "string", description: "The city and state, e.g. San Francisco, CA" } },
    required: ["location"],
  },
};

function translationError(body: unknown): TranslationError {
  try {
    anthropicRequestToOpenAI(body);
  } catch (error) {
    if (error instanceof TranslationError) return error;
    throw error;
  }
  throw new Error("expected a TranslationError");
}

describe("anthropicRequestToOpenAI", () => {
  test("maps system, sampling, stop sequences, metadata and streaming (asking for the usage chunk)", () => {
    expect(
      anthropicRequestToOpenAI({
        model: "claude-sonnet-4-5",
        max_tokens: 1024,
        system: [
          { type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } },
          { type: "text", text: "Be brief." },
        ],
        messages: [{ role: "user", content: "Hello" }],
        temperature: 0.2,
        top_p: 0.9,
        top_k: 40,
        stop_sequences: ["</answer>"],
        metadata: { user_id: "user_abc" },
        stream: true,
      }),
    ).toMatchInlineSnapshot(`
      {
        "max_tokens": 1024,
        "messages": [
          {
            "content": [
              {
                "text": "You are Claude Code.",
                "type": "text",
              },
              {
                "text": "Be brief.",
                "type": "text",
              },
            ],
            "role": "system",
          },
          {
            "content": "Hello",
            "role": "user",
          },
        ],
        "model": "claude-sonnet-4-5",
        "stop": [
          "</answer>",
        ],
        "stream": true,
        "stream_options": {
          "include_usage": true,
        },
        "temperature": 0.2,
        "top_k": 40,
        "top_p": 0.9,
        "user": "user_abc",
      }
    `);
  });

  test("maps a tool round: tools, tool_choice, tool_use blocks and tool_result blocks", () => {
    expect(
      anthropicRequestToOpenAI({
        model: "claude-sonnet-4-5",
        max_tokens: 1024,
        tools: [weatherTool],
        tool_choice: { type: "any", disable_parallel_tool_use: true },
        messages: [
          { role: "user", content: "What is the weather like in San Francisco?" },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "I should call the tool.", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" },
              { type: "text", text: "I'll check the current weather in San Francisco for you." },
              { type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", input: { location: "San Francisco, CA", unit: "celsius" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_01A09q90qw90lq917835lq9", content: [{ type: "text", text: "15 degrees" }] },
              { type: "text", text: "And in Paris?" },
            ],
          },
        ],
      }),
    ).toMatchInlineSnapshot(`
      {
        "max_tokens": 1024,
        "messages": [
          {
            "content": "What is the weather like in San Francisco?",
            "role": "user",
          },
          {
            "content": "I'll check the current weather in San Francisco for you.",
            "role": "assistant",
            "tool_calls": [
              {
                "function": {
                  "arguments": "{"location":"San Francisco, CA","unit":"celsius"}",
                  "name": "get_weather",
                },
                "id": "toolu_01A09q90qw90lq917835lq9",
                "type": "function",
              },
            ],
          },
          {
            "content": "15 degrees",
            "role": "tool",
            "tool_call_id": "toolu_01A09q90qw90lq917835lq9",
          },
          {
            "content": "And in Paris?",
            "role": "user",
          },
        ],
        "model": "claude-sonnet-4-5",
        "parallel_tool_calls": false,
        "tool_choice": "required",
        "tools": [
          {
            "function": {
              "description": "Get the current weather in a given location",
              "name": "get_weather",
              "parameters": {
                "properties": {
                  "location": {
                    "description": "The city and state, e.g. San Francisco, CA",
                    "type": "string",
                  },
                },
                "required": [
                  "location",
                ],
                "type": "object",
              },
            },
            "type": "function",
          },
        ],
      }
    `);
  });

  test("maps image and PDF blocks to image_url and file parts, and tool-result images to user content", () => {
    const request = anthropicRequestToOpenAI({
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQSkZJRg==" } },
            { type: "image", source: { type: "url", url: "https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg" } },
            { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQ=" }, title: "report.pdf" },
            { type: "text", text: "Describe these." },
          ],
        },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "screenshot", input: {} }] },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_1",
              content: [
                { type: "text", text: "Here it is." },
                { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
              ],
            },
          ],
        },
      ],
    });
    expect(request.messages).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "image_url": {
                "url": "data:image/jpeg;base64,/9j/4AAQSkZJRg==",
              },
              "type": "image_url",
            },
            {
              "image_url": {
                "url": "https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg",
              },
              "type": "image_url",
            },
            {
              "file": {
                "file_data": "data:application/pdf;base64,JVBERi0xLjQ=",
                "filename": "report.pdf",
              },
              "type": "file",
            },
            {
              "text": "Describe these.",
              "type": "text",
            },
          ],
          "role": "user",
        },
        {
          "content": null,
          "role": "assistant",
          "tool_calls": [
            {
              "function": {
                "arguments": "{}",
                "name": "screenshot",
              },
              "id": "toolu_1",
              "type": "function",
            },
          ],
        },
        {
          "content": "Here it is.",
          "role": "tool",
          "tool_call_id": "toolu_1",
        },
        {
          "content": [
            {
              "image_url": {
                "url": "data:image/png;base64,iVBORw0KGgo=",
              },
              "type": "image_url",
            },
          ],
          "role": "user",
        },
      ]
    `);
  });

  test("maps every tool_choice", () => {
    const choiceOf = (tool_choice: Record<string, unknown>) => {
      const { tool_choice: choice, parallel_tool_calls } = anthropicRequestToOpenAI({
        model: "m",
        max_tokens: 1,
        messages: [{ role: "user", content: "x" }],
        tools: [weatherTool],
        tool_choice,
      });
      return { choice, parallel_tool_calls };
    };
    expect(choiceOf({ type: "auto" })).toEqual({ choice: "auto", parallel_tool_calls: undefined });
    expect(choiceOf({ type: "any" })).toEqual({ choice: "required", parallel_tool_calls: undefined });
    expect(choiceOf({ type: "none" })).toEqual({ choice: "none", parallel_tool_calls: undefined });
    expect(choiceOf({ type: "tool", name: "get_weather", disable_parallel_tool_use: true })).toEqual({
      choice: { type: "function", function: { name: "get_weather" } },
      parallel_tool_calls: false,
    });
  });

  test("a tool_result flagged is_error tells the model in the tool message's text", () => {
    const request = anthropicRequestToOpenAI({
      model: "claude-sonnet-4-5",
      max_tokens: 64,
      messages: [
        { role: "user", content: "Weather?" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", is_error: true, content: "city is required" }] },
      ],
    });
    expect(request.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "toolu_1", content: "Error: city is required" });
  });

  test("names the missing or invalid parameter the way Anthropic does", () => {
    const valid = { model: "claude-sonnet-4-5", max_tokens: 1024, messages: [{ role: "user", content: "Hello" }] };
    expect(translationError({ ...valid, model: undefined })).toMatchObject({ message: "model: Field required", param: "model" });
    expect(translationError({ ...valid, max_tokens: undefined })).toMatchObject({ message: "max_tokens: Field required", param: "max_tokens" });
    expect(translationError({ ...valid, messages: undefined })).toMatchObject({ message: "messages: Field required", param: "messages" });
    expect(translationError({ ...valid, max_tokens: 0 }).param).toBe("max_tokens");
    expect(translationError({ ...valid, messages: [{ role: "system", content: "x" }] }).param).toBe("messages.0.role");
    expect(translationError({ ...valid, tools: [{ type: "web_search_20250305", name: "web_search", max_uses: 5 }] }).param).toBe("tools.0.type");
    expect(translationError({ ...valid, messages: [{ role: "user", content: [{ type: "container_upload", file_id: "f" }] }] }).param).toBe(
      "messages.0.content.0.type",
    );
    expect(translationError("not json").param).toBeNull();
  });
});
