import { describe, expect, test } from "bun:test";
import { type Fuzz, forEachCase, outcomeOf } from "@tollgate/shared/fuzz-support";
import { adapterFor, TranslationError } from "@tollgate/upstream";
import { randomSchema } from "@tollgate/upstream/chat-fuzz-support";
import { anthropicRequestToOpenAI } from "./anthropic-request-to-openai";

/** A content block for `role` (a block of the other role's kinds, or garbage, now and then). */
function randomBlock(fuzz: Fuzz, role: unknown): unknown {
  if (fuzz.chance(0.9)) {
    if (role === "user") return fuzz.pick([{ type: "text", text: fuzz.string(20) }, { type: "tool_result", tool_use_id: "toolu_1", content: fuzz.string() }, { type: "image", source: { type: "url", url: "https://x/y.png" } }]);
    if (role === "assistant") return fuzz.pick([{ type: "text", text: fuzz.string(20) }, { type: "tool_use", id: "toolu_1", name: "lookup", input: fuzz.json(2) }, { type: "thinking", thinking: "t", signature: "s" }]);
  }
  switch (fuzz.int(9)) {
    case 0:
    case 1:
      return { type: "text", text: fuzz.chance(0.9) ? fuzz.string(30) : fuzz.json(1), ...(fuzz.chance(0.1) ? { cache_control: { type: "ephemeral" } } : {}) };
    case 2:
      return { type: "image", source: fuzz.pick([{ type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" }, { type: "url", url: "https://example.com/a.png" }, { type: "file", file_id: "f" }, fuzz.json(1)]) };
    case 3:
      return { type: "document", title: fuzz.json(0), source: fuzz.pick([{ type: "base64", media_type: "application/pdf", data: "JVBERi0=" }, { type: "text", data: fuzz.string() }, fuzz.json(1)]) };
    case 4:
      return { type: "tool_use", id: fuzz.chance(0.9) ? `toolu_${fuzz.int(3)}` : fuzz.json(0), name: fuzz.pick(["lookup", fuzz.json(0)]), input: fuzz.json(3) };
    case 5:
      return {
        type: "tool_result",
        tool_use_id: fuzz.chance(0.9) ? `toolu_${fuzz.int(3)}` : fuzz.json(0),
        content: fuzz.pick([fuzz.string(), [{ type: "text", text: "r" }, { type: "image", source: { type: "url", url: "https://x/y.png" } }], fuzz.json(2), null]),
        is_error: fuzz.json(0),
      };
    case 6:
      return { type: fuzz.pick(["thinking", "redacted_thinking"]), thinking: fuzz.string(), signature: "s" };
    case 7:
      return { type: fuzz.string(8) };
    default:
      return fuzz.json(2);
  }
}

/** A random Anthropic Messages request, as @anthropic-ai/sdk would send it or a hostile client would not. */
function randomMessagesBody(fuzz: Fuzz): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: fuzz.chance(0.95) ? "claude-sonnet-4-5" : fuzz.json(0),
    max_tokens: fuzz.chance(0.9) ? 1 + fuzz.int(4096) : fuzz.json(0),
    messages: Array.from({ length: 1 + fuzz.int(5) }, (_, index) => {
      const role = fuzz.chance(0.97) ? (index % 2 === 0 ? "user" : "assistant") : fuzz.pick(["system", fuzz.json(0)]);
      return { role, content: fuzz.chance(0.4) ? fuzz.string(40) : Array.from({ length: 1 + fuzz.int(3) }, () => randomBlock(fuzz, role)) };
    }),
  };
  if (fuzz.chance(0.3)) body.system = fuzz.chance(0.5) ? fuzz.string(30) : [{ type: "text", text: fuzz.string() }, fuzz.json(1)];
  if (fuzz.chance(0.4)) {
    body.tools = Array.from({ length: fuzz.int(4) }, () =>
      fuzz.chance(0.9) ? { name: fuzz.pick(["lookup", "search", fuzz.json(0)]), description: fuzz.string(), input_schema: randomSchema(fuzz) } : { type: "web_search_20250305", name: "web_search" },
    );
  }
  if (fuzz.chance(0.3)) body.tool_choice = fuzz.pick([{ type: "auto" }, { type: "any" }, { type: "tool", name: "lookup" }, { type: "none" }, fuzz.json(1)]);
  if (fuzz.chance(0.2)) body.stop_sequences = fuzz.pick([["x"], [1, "y"], fuzz.json(1)]);
  if (fuzz.chance(0.2)) body.stream = fuzz.json(0);
  if (fuzz.chance(0.1)) body.metadata = fuzz.json(1);
  return body;
}

const channels = {
  gemini: { baseUrl: "https://generativelanguage.googleapis.com", apiKey: "AIza-fuzz", config: {} },
  "openai-compatible": { baseUrl: "https://api.example.com/v1", apiKey: "sk-fuzz", config: {} },
};

describe("Anthropic Messages -> OpenAI chat under fuzzing", () => {
  test("2,000 random and mutated requests translate (and go on to a Gemini or OpenAI channel) or are a TranslationError", () => {
    const outcomes = { ok: 0, refused: 0 };
    forEachCase(2_000, 20_000, (fuzz) => {
      const generated = randomMessagesBody(fuzz);
      const body = fuzz.chance(0.3) ? fuzz.mutate(generated) : generated;
      const outcome = outcomeOf(
        () => {
          const chat = anthropicRequestToOpenAI(body) as unknown as Record<string, unknown>;
          const type = fuzz.pick(["gemini", "openai-compatible"] as const);
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
});
