import { describe, expect, test } from "bun:test";
import { inputItemsOf } from "./responses-input-to-messages";
import { responsesRequestToChat } from "./responses-request-to-chat";
import { UnsupportedParameter } from "./unsupported-parameter";

function translate(body: Record<string, unknown>, history: unknown[] = []) {
  return responsesRequestToChat(body, history, inputItemsOf(body.input));
}

describe("responsesRequestToChat", () => {
  test("instructions, parts, images, sampling, reasoning effort, max_output_tokens and text.format are carried", () => {
    const chat = translate({
      model: "m",
      instructions: "Be terse.",
      input: [
        { role: "developer", content: "Answer in French." },
        { role: "user", content: [{ type: "input_text", text: "What is this?" }, { type: "input_image", image_url: "https://x/cat.png", detail: "low" }] },
      ],
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 77,
      reasoning: { effort: "low" },
      text: { format: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true } },
      stream: true,
    });
    expect(chat).toEqual({
      model: "m",
      stream: true,
      messages: [
        { role: "system", content: "Be terse." },
        { role: "system", content: "Answer in French." },
        { role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image_url", image_url: { url: "https://x/cat.png", detail: "low" } }] },
      ],
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 77,
      reasoning_effort: "low",
      response_format: { type: "json_schema", json_schema: { name: "answer", schema: { type: "object" }, strict: true } },
    });
  });

  test("an assistant message and its function calls become one chat message; outputs become tool messages", () => {
    const chat = translate({
      model: "m",
      input: [
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Let me check." }] },
        { type: "function_call", call_id: "c1", name: "a", arguments: "{}" },
        { type: "function_call", call_id: "c2", name: "b", arguments: '{"x":1}' },
        { type: "reasoning", id: "rs_1", summary: [] },
        { type: "function_call_output", call_id: "c1", output: "one" },
        { type: "function_call_output", call_id: "c2", output: [{ type: "input_text", text: "two" }] },
      ],
      tools: [{ type: "function", name: "a", parameters: { type: "object" } }],
      tool_choice: { type: "function", name: "a" },
      parallel_tool_calls: false,
    });
    expect(chat.messages).toEqual([
      {
        role: "assistant",
        content: "Let me check.",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "a", arguments: "{}" } },
          { id: "c2", type: "function", function: { name: "b", arguments: '{"x":1}' } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "one" },
      { role: "tool", tool_call_id: "c2", content: "two" },
    ]);
    expect(chat.tools).toEqual([{ type: "function", function: { name: "a", parameters: { type: "object" } } }]);
    expect(chat.tool_choice).toEqual({ type: "function", function: { name: "a" } });
    expect(chat.parallel_tool_calls).toBe(false);
  });

  test("replayed history comes before this request's input", () => {
    const chat = translate({ model: "m", input: "And now?" }, [{ role: "user", content: "Before" }, { type: "message", role: "assistant", content: [{ type: "output_text", text: "Ok" }] }]);
    expect(chat.messages).toEqual([
      { role: "user", content: "Before" },
      { role: "assistant", content: "Ok" },
      { role: "user", content: "And now?" },
    ]);
  });

  test("what chat cannot carry is refused as unsupported, naming the parameter", () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ model: "m", input: "x", tools: [{ type: "file_search" }] }, "tools[0]"],
      [{ model: "m", input: "x", background: true }, "background"],
      [{ model: "m", input: "x", some_new_field: 1 }, "some_new_field"],
      [{ model: "m", input: [{ type: "item_reference", id: "msg_1" }] }, "input[0]"],
      [{ model: "m", input: [{ role: "user", content: [{ type: "input_image", file_id: "file_1" }] }] }, "input[0].content[0]"],
      [{ model: "m", input: "x", tool_choice: { type: "allowed_tools" } }, "tool_choice"],
    ];
    for (const [body, param] of cases) {
      let thrown: unknown;
      try {
        translate(body);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(UnsupportedParameter);
      expect((thrown as UnsupportedParameter).param).toBe(param);
    }
  });

  test("hints that do not change the answer are accepted", () => {
    const chat = translate({ model: "m", input: "x", store: false, include: ["reasoning.encrypted_content"], truncation: "auto", prompt_cache_key: "k", metadata: { a: "b" } });
    expect(chat).toEqual({ model: "m", messages: [{ role: "user", content: "x" }] });
  });
});
