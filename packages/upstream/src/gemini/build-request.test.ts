import { describe, expect, test } from "bun:test";
import { type ChatTranslationInput, TranslationError } from "../provider-adapter";
import { buildChatRequest } from "./build-request";

const channel = { baseUrl: "https://generativelanguage.googleapis.com", apiKey: "test-gemini-key", config: {} };

function input(body: Record<string, unknown>, stream = false): ChatTranslationInput {
  return { channel, upstreamModel: "gemini-2.5-flash", body: { model: "gemini-flash", ...body }, stream };
}

function upstreamBody(body: Record<string, unknown>): unknown {
  return JSON.parse(buildChatRequest(input(body)).body);
}

describe("gemini buildChatRequest", () => {
  test("sends the key in x-goog-api-key and asks generateContent, or streamGenerateContent with alt=sse", () => {
    const request = buildChatRequest(input({ messages: [{ role: "user", content: "Hi" }] }));
    expect(request.url).toMatchInlineSnapshot(`"https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"`);
    expect(request.headers).toMatchInlineSnapshot(`
      {
        "content-type": "application/json",
        "x-goog-api-key": "test-gemini-key",
      }
    `);
    expect(request.url).not.toContain("test-gemini-key");
    const streamed = buildChatRequest(input({ messages: [{ role: "user", content: "Hi" }], stream: true }, true));
    expect(streamed.url).toMatchInlineSnapshot(`"https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"`);
  });

  test("a mapping written as models/<name> and extra channel headers are honoured", () => {
    const request = buildChatRequest({
      channel: { ...channel, config: { headers: { "x-goog-user-project": "tollgate-test" } } },
      upstreamModel: "models/gemini-2.0-flash",
      body: { model: "flash", messages: [{ role: "user", content: "Hi" }] },
      stream: false,
    });
    expect(request.url).toBe("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent");
    expect(request.headers["x-goog-user-project"]).toBe("tollgate-test");
  });

  test("system and developer messages become systemInstruction, roles alternate user/model, same roles merge", () => {
    expect(
      upstreamBody({
        messages: [
          { role: "system", content: "You are terse." },
          { role: "developer", content: [{ type: "text", text: "Answer in English." }] },
          { role: "user", content: "Hello" },
          { role: "user", content: [{ type: "text", text: "Are you there?" }] },
          { role: "assistant", content: "Yes." },
          { role: "user", content: "Good." },
        ],
      }),
    ).toMatchInlineSnapshot(`
      {
        "contents": [
          {
            "parts": [
              {
                "text": "Hello",
              },
              {
                "text": "Are you there?",
              },
            ],
            "role": "user",
          },
          {
            "parts": [
              {
                "text": "Yes.",
              },
            ],
            "role": "model",
          },
          {
            "parts": [
              {
                "text": "Good.",
              },
            ],
            "role": "user",
          },
        ],
        "systemInstruction": {
          "parts": [
            {
              "text": "You are terse.",
            },
            {
              "text": "Answer in English.",
            },
          ],
        },
      }
    `);
  });

  test("images: data URLs become inlineData, http URLs fileData with a guessed mime type", () => {
    expect(
      upstreamBody({
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "Compare these." },
              { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
              { type: "image_url", image_url: { url: "https://example.com/photos/cat.webp?size=large", detail: "low" } },
              { type: "image_url", image_url: { url: "https://example.com/render" } },
              { type: "input_audio", input_audio: { data: "UklGRg==", format: "mp3" } },
            ],
          },
        ],
      }),
    ).toMatchInlineSnapshot(`
      {
        "contents": [
          {
            "parts": [
              {
                "text": "Compare these.",
              },
              {
                "inlineData": {
                  "data": "iVBORw0KGgo=",
                  "mimeType": "image/png",
                },
              },
              {
                "fileData": {
                  "fileUri": "https://example.com/photos/cat.webp?size=large",
                  "mimeType": "image/webp",
                },
              },
              {
                "fileData": {
                  "fileUri": "https://example.com/render",
                  "mimeType": "image/jpeg",
                },
              },
              {
                "inlineData": {
                  "data": "UklGRg==",
                  "mimeType": "audio/mp3",
                },
              },
            ],
            "role": "user",
          },
        ],
      }
    `);
  });

  test("sampling fields, stop, n and a json_schema response_format map to generationConfig", () => {
    const body = upstreamBody({
      messages: [{ role: "user", content: "Give me a city." }],
      temperature: 0.2,
      top_p: 0.9,
      max_completion_tokens: 256,
      max_tokens: 999,
      stop: "END",
      n: 2,
      seed: 7,
      presence_penalty: 0.5,
      user: "someone",
      stream_options: { include_usage: true },
      response_format: {
        type: "json_schema",
        json_schema: {
          name: "city",
          strict: true,
          schema: {
            $schema: "http://json-schema.org/draft-07/schema#",
            type: "object",
            properties: { name: { type: "string" }, population: { type: ["integer", "null"] } },
            required: ["name", "population"],
            additionalProperties: false,
          },
        },
      },
    });
    expect((body as { generationConfig: unknown }).generationConfig).toMatchInlineSnapshot(`
      {
        "candidateCount": 2,
        "maxOutputTokens": 256,
        "presencePenalty": 0.5,
        "responseMimeType": "application/json",
        "responseSchema": {
          "properties": {
            "name": {
              "type": "string",
            },
            "population": {
              "nullable": true,
              "type": "integer",
            },
          },
          "required": [
            "name",
            "population",
          ],
          "type": "object",
        },
        "seed": 7,
        "stopSequences": [
          "END",
        ],
        "temperature": 0.2,
        "topP": 0.9,
      }
    `);
  });

  test("json_object asks for JSON; reasoning_effort sets a thinking budget and asks for thought summaries", () => {
    const body = upstreamBody({
      messages: [{ role: "user", content: "Hi" }],
      response_format: { type: "json_object" },
      reasoning_effort: "low",
    }) as { generationConfig: unknown };
    expect(body.generationConfig).toEqual({
      responseMimeType: "application/json",
      thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
    });
    const always = buildChatRequest({ ...input({ messages: [{ role: "user", content: "Hi" }] }), channel: { ...channel, config: { includeThoughts: true } } });
    expect(JSON.parse(always.body).generationConfig).toEqual({ thinkingConfig: { includeThoughts: true } });
  });

  test("tools become functionDeclarations with schemas Gemini accepts, tool_choice becomes functionCallingConfig", () => {
    const body = upstreamBody({
      messages: [{ role: "user", content: "Weather in Boston?" }],
      tools: [
        {
          type: "function",
          function: {
            name: "get_current_weather",
            description: "Current weather for a city.",
            strict: true,
            parameters: {
              $schema: "http://json-schema.org/draft-07/schema#",
              type: "object",
              properties: {
                location: { type: "string", description: "City and state", format: "uri" },
                unit: { type: "string", enum: ["celsius", "fahrenheit"] },
                when: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
                place: { $ref: "#/$defs/place" },
              },
              required: ["location", "unit", "missing"],
              additionalProperties: false,
              $defs: { place: { type: "object", properties: { lat: { type: "number" } }, additionalProperties: false } },
            },
          },
        },
        { type: "function", function: { name: "get_time", parameters: { type: "object", properties: {} } } },
      ],
      tool_choice: { type: "function", function: { name: "get_current_weather" } },
    }) as { tools: unknown; toolConfig: unknown };
    expect(body.tools).toMatchInlineSnapshot(`
      [
        {
          "functionDeclarations": [
            {
              "description": "Current weather for a city.",
              "name": "get_current_weather",
              "parameters": {
                "properties": {
                  "location": {
                    "description": "City and state",
                    "type": "string",
                  },
                  "place": {
                    "properties": {
                      "lat": {
                        "type": "number",
                      },
                    },
                    "type": "object",
                  },
                  "unit": {
                    "enum": [
                      "celsius",
                      "fahrenheit",
                    ],
                    "type": "string",
                  },
                  "when": {
                    "format": "date-time",
                    "nullable": true,
                    "type": "string",
                  },
                },
                "required": [
                  "location",
                  "unit",
                ],
                "type": "object",
              },
            },
            {
              "name": "get_time",
            },
          ],
        },
      ]
    `);
    expect(body.toolConfig).toMatchInlineSnapshot(`
      {
        "functionCallingConfig": {
          "allowedFunctionNames": [
            "get_current_weather",
          ],
          "mode": "ANY",
        },
      }
    `);
  });

  test("tool_choice auto, none and required are AUTO, NONE and ANY", () => {
    const modeFor = (toolChoice: unknown) =>
      (
        upstreamBody({
          messages: [{ role: "user", content: "Hi" }],
          tools: [{ type: "function", function: { name: "noop" } }],
          tool_choice: toolChoice,
        }) as { toolConfig: { functionCallingConfig: { mode: string } } }
      ).toolConfig.functionCallingConfig.mode;
    expect([modeFor("auto"), modeFor("none"), modeFor("required")]).toEqual(["AUTO", "NONE", "ANY"]);
  });

  test("assistant tool calls become functionCall parts and tool results functionResponse parts named by tool_call_id", () => {
    const body = upstreamBody({
      messages: [
        { role: "user", content: "Weather in Boston and Paris?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_abc_0",
              type: "function",
              function: { name: "get_current_weather", arguments: '{"location":"Boston, MA"}' },
              extra_content: { google: { thought_signature: "c2lnbmF0dXJl" } },
            },
            { id: "call_abc_1", type: "function", function: { name: "get_local_time", arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_abc_1", content: "14:05" },
        { role: "tool", tool_call_id: "call_abc_0", content: '{"temperature":22,"unit":"celsius"}' },
        { role: "user", content: "Thanks!" },
      ],
    }) as { contents: unknown };
    expect(body.contents).toMatchInlineSnapshot(`
      [
        {
          "parts": [
            {
              "text": "Weather in Boston and Paris?",
            },
          ],
          "role": "user",
        },
        {
          "parts": [
            {
              "functionCall": {
                "args": {
                  "location": "Boston, MA",
                },
                "name": "get_current_weather",
              },
              "thoughtSignature": "c2lnbmF0dXJl",
            },
            {
              "functionCall": {
                "args": {
                  "city": "Paris",
                },
                "name": "get_local_time",
              },
            },
          ],
          "role": "model",
        },
        {
          "parts": [
            {
              "functionResponse": {
                "name": "get_local_time",
                "response": {
                  "output": "14:05",
                },
              },
            },
            {
              "functionResponse": {
                "name": "get_current_weather",
                "response": {
                  "temperature": 22,
                  "unit": "celsius",
                },
              },
            },
            {
              "text": "Thanks!",
            },
          ],
          "role": "user",
        },
      ]
    `);
  });

  test("a replayed tool call without a signature gets Google's documented skip value on the first call", () => {
    const body = upstreamBody({
      messages: [
        { role: "user", content: "Time?" },
        { role: "assistant", tool_calls: [{ id: "x", type: "function", function: { name: "now", arguments: "" } }] },
        { role: "tool", tool_call_id: "x", content: [{ type: "text", text: "noon" }] },
      ],
    }) as { contents: Array<{ parts: unknown[] }> };
    expect(body.contents[1]!.parts).toEqual([
      { functionCall: { name: "now", args: {} }, thoughtSignature: "skip_thought_signature_validator" },
    ]);
    expect(body.contents[2]!.parts).toEqual([{ functionResponse: { name: "now", response: { output: "noon" } } }]);
  });

  test("input it cannot express is a TranslationError naming the parameter", () => {
    const attempt = (body: Record<string, unknown>) => {
      try {
        buildChatRequest(input(body));
      } catch (error) {
        expect(error).toBeInstanceOf(TranslationError);
        return (error as TranslationError).param;
      }
      throw new Error("expected a TranslationError");
    };
    expect(attempt({ messages: [{ role: "tool", tool_call_id: "nope", content: "x" }] })).toBe("messages[0].tool_call_id");
    expect(attempt({ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "ftp://x/y.png" } }] }] })).toBe(
      "messages[0].content[0]",
    );
    expect(attempt({ messages: [{ role: "user", content: "Hi" }], tools: [{ type: "web_search" }] })).toBe("tools[0].type");
    expect(
      attempt({
        messages: [{ role: "assistant", tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: "{oops" } }] }],
      }),
    ).toBe("messages[0].tool_calls[0].function.arguments");
    expect(attempt({ messages: [] })).toBe("messages");
  });
});
