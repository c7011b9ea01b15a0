import { describe, expect, test } from "bun:test";
import { type Fuzz, forEachCase, outcomeOf } from "@tollgate/shared/fuzz-support";
import { adapterFor, TranslationError } from "@tollgate/upstream";
import { randomSchema } from "@tollgate/upstream/chat-fuzz-support";
import { inputItemsOf } from "./responses-input-to-messages";
import { responsesRequestToChat } from "./responses-request-to-chat";

function randomInputPart(fuzz: Fuzz): unknown {
  return fuzz.pick([
    { type: "input_text", text: fuzz.string(20) },
    { type: "output_text", text: fuzz.string(20) },
    { type: "input_image", image_url: fuzz.pick(["https://x/cat.png", "data:image/png;base64,iVBORw0KGgo=", fuzz.json(0)]), detail: fuzz.json(0) },
    { type: "input_file", file_data: fuzz.pick(["data:application/pdf;base64,JVBERi0=", fuzz.json(0)]), filename: fuzz.json(0) },
    { type: "refusal", refusal: fuzz.string() },
    { type: fuzz.string(6) },
    fuzz.json(1),
  ]);
}

function randomItem(fuzz: Fuzz): unknown {
  switch (fuzz.int(7)) {
    case 0:
    case 1:
      return {
        type: fuzz.chance(0.8) ? "message" : undefined,
        role: fuzz.pick(["user", "assistant", "system", "developer", fuzz.json(0)]),
        content: fuzz.chance(0.4) ? fuzz.string(30) : Array.from({ length: fuzz.int(4) }, () => randomInputPart(fuzz)),
      };
    case 2:
      return { type: "function_call", call_id: fuzz.pick(["call_1", fuzz.json(0)]), name: fuzz.pick(["lookup", fuzz.json(0)]), arguments: fuzz.pick(['{"q":1}', "", fuzz.json(2)]) };
    case 3:
      return { type: "function_call_output", call_id: fuzz.pick(["call_1", fuzz.json(0)]), output: fuzz.chance(0.6) ? fuzz.string() : [randomInputPart(fuzz)] };
    case 4:
      return { type: "reasoning", summary: [] };
    case 5:
      return { type: fuzz.pick(["item_reference", "web_search_call", fuzz.string(6)]), id: "x" };
    default:
      return fuzz.json(2);
  }
}

/** A random Responses request body, as the openai client sends one (or, mutated, as it would not). */
function randomResponsesBody(fuzz: Fuzz): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: "model",
    input: fuzz.chance(0.3) ? fuzz.string(30) : Array.from({ length: 1 + fuzz.int(5) }, () => randomItem(fuzz)),
  };
  if (fuzz.chance(0.3)) body.instructions = fuzz.string(20);
  if (fuzz.chance(0.3)) {
    body.tools = Array.from({ length: fuzz.int(3) }, () =>
      fuzz.chance(0.85) ? { type: "function", name: fuzz.pick(["lookup", fuzz.json(0)]), parameters: randomSchema(fuzz), strict: fuzz.json(0) } : { type: "web_search" },
    );
  }
  if (fuzz.chance(0.2)) body.tool_choice = fuzz.pick(["auto", "required", { type: "function", name: "lookup" }, fuzz.json(1)]);
  if (fuzz.chance(0.3)) {
    body.text = fuzz.pick([
      { format: { type: "json_schema", name: "answer", schema: randomSchema(fuzz) } },
      { format: { type: "json_object" } },
      { format: fuzz.json(1), verbosity: fuzz.json(0) },
      fuzz.json(1),
    ]);
  }
  if (fuzz.chance(0.2)) body.reasoning = fuzz.pick([{ effort: "low" }, fuzz.json(1)]);
  if (fuzz.chance(0.1)) body[fuzz.pick(["background", "conversation", "prompt", "toString", "constructor", fuzz.string(6)])] = fuzz.json(1);
  return body;
}

const channels = {
  anthropic: { baseUrl: "https://api.anthropic.com", apiKey: "sk-ant-fuzz", config: {} },
  gemini: { baseUrl: "https://generativelanguage.googleapis.com", apiKey: "AIza-fuzz", config: {} },
};

describe("Responses -> chat under fuzzing", () => {
  test("2,000 random and mutated requests translate (and go on to an Anthropic or Gemini channel) or are a TranslationError", () => {
    const outcomes = { ok: 0, refused: 0 };
    forEachCase(2_000, 30_000, (fuzz) => {
      const generated = randomResponsesBody(fuzz);
      const body = (fuzz.chance(0.3) ? fuzz.mutate(generated) : generated) as Record<string, unknown>;
      const outcome = outcomeOf(
        () => {
          const record = typeof body === "object" && body !== null && !Array.isArray(body) ? body : {};
          const chat = responsesRequestToChat(record, [], inputItemsOf(record.input));
          const type = fuzz.pick(["anthropic", "gemini"] as const);
          const request = adapterFor(type).buildChatRequest({ channel: channels[type], upstreamModel: "model", body: chat, stream: chat.stream === true });
          expect(typeof JSON.parse(request.body)).toBe("object");
        },
        (error) => error instanceof TranslationError,
      );
      outcomes[outcome]++;
    });
    expect(outcomes.ok).toBeGreaterThan(100);
    expect(outcomes.refused).toBeGreaterThan(100);
  });

  test("100,000 function_call items in a row join one assistant message in one linear pass", () => {
    const input = [{ role: "user", content: "Hi" }, { role: "assistant", content: "Calling." }];
    for (let index = 0; index < 100_000; index++) input.push({ type: "function_call", call_id: `call_${index}`, name: "f", arguments: "{}" } as never);
    const chat = responsesRequestToChat({ model: "m", input }, [], input);
    const messages = chat.messages as Array<{ tool_calls?: unknown[] }>;
    expect(messages).toHaveLength(2);
    expect(messages[1]!.tool_calls).toHaveLength(100_000);
  });
});
