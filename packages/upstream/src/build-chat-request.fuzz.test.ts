import { describe, expect, test } from "bun:test";
import { forEachCase, outcomeOf } from "@tollgate/shared/fuzz-support";
import { adapterFor } from "./adapters";
import { type AdapterChannel, TranslationError } from "./provider-adapter";
import { randomChatBody } from "./shared/chat-fuzz-support";

const channels = {
  anthropic: { baseUrl: "https://api.anthropic.com", apiKey: "sk-ant-fuzz", config: {} },
  "anthropic-native-output": { baseUrl: "https://api.anthropic.com", apiKey: "sk-ant-fuzz", config: { structuredOutput: "native" } },
  gemini: { baseUrl: "https://generativelanguage.googleapis.com", apiKey: "AIza-fuzz", config: { includeThoughts: true } },
  "azure-openai": { baseUrl: "https://example.openai.azure.com", apiKey: "azure-fuzz", config: { apiVersion: "2024-10-21" } },
  "openai-compatible": { baseUrl: "https://api.example.com/v1", apiKey: "sk-fuzz", config: {} },
} satisfies Record<string, AdapterChannel>;

/**
 * Every adapter's OpenAI chat -> upstream translation, fed random and mutated requests: each case ends
 * (the test finishing is the bound), and either yields a request whose body is JSON, or refuses with the
 * TranslationError that becomes a 400 in the client's envelope. Never a TypeError or a RangeError, which
 * would be a 500 (and, before the pipeline's fix, a channel fault).
 */
describe("chat request translation under fuzzing", () => {
  for (const [label, channel] of Object.entries(channels)) {
    const type = label.startsWith("anthropic") ? "anthropic" : label;
    test(`${label}: 1,500 random and mutated requests translate or are a TranslationError`, () => {
      const adapter = adapterFor(type);
      const outcomes = { ok: 0, refused: 0 };
      forEachCase(1_500, 10_000, (fuzz) => {
        const generated = randomChatBody(fuzz);
        const body = (fuzz.chance(0.5) ? fuzz.mutate(generated) : generated) as Record<string, unknown>;
        const stream = fuzz.chance(0.3);
        const outcome = outcomeOf(
          () => {
            const request = adapter.buildChatRequest({ channel, upstreamModel: "model", body: body ?? {}, stream, clientWantsUsage: stream });
            expect(typeof JSON.parse(request.body)).toBe("object");
            expect(request.body).not.toContain(channel.apiKey);
          },
          (error) => error instanceof TranslationError && (error.param === null || typeof error.param === "string"),
        );
        outcomes[outcome]++;
      });
      expect(outcomes.ok).toBeGreaterThan(10);
      // The OpenAI-speaking adapters relay what they cannot judge; the translating ones refuse some of it.
      if (type === "anthropic" || type === "gemini") expect(outcomes.refused).toBeGreaterThan(10);
    });
  }
});

describe("crashes the fuzzer found, kept as cases", () => {
  const gemini = adapterFor("gemini");
  const anthropic = adapterFor("anthropic");
  const build = (adapter: typeof gemini, channel: AdapterChannel, body: Record<string, unknown>) => () =>
    adapter.buildChatRequest({ channel, upstreamModel: "model", body, stream: false });

  test("a role that is an object whose toString is not a function is a TranslationError naming the role", () => {
    const body = JSON.parse('{"messages":[{"role":{"toString":1},"content":"x"}]}');
    for (const [adapter, channel] of [[gemini, channels.gemini], [anthropic, channels.anthropic]] as const) {
      expect(build(adapter, channel, body)).toThrow(TranslationError);
    }
  });

  test("a text data: URL with a broken percent escape is a TranslationError on Gemini, not a URIError", () => {
    const body = { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:text/plain,%E0%A4%A" } }] }] };
    expect(build(gemini, channels.gemini, body)).toThrow(TranslationError);
  });

  test("tool-call arguments that are an array are a TranslationError on Gemini", () => {
    const body = JSON.parse('{"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":[{"toString":1}]}}]}]}');
    expect(build(gemini, channels.gemini, body)).toThrow(TranslationError);
  });
});

describe("long runs of one kind of message", () => {
  test("50,000 consecutive tool messages become one Anthropic user turn in one linear pass", () => {
    const messages: unknown[] = [
      { role: "user", content: "Hi" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_0", type: "function", function: { name: "f", arguments: "{}" } }] },
    ];
    for (let index = 0; index < 50_000; index++) messages.push({ role: "tool", tool_call_id: `call_${index}`, content: "ok" });
    messages.push({ role: "user", content: "and?" });
    const request = adapterFor("anthropic").buildChatRequest({ channel: channels.anthropic, upstreamModel: "m", body: { messages }, stream: false });
    const sent = JSON.parse(request.body) as { messages: Array<{ role: string; content: Array<{ type: string }> }> };
    expect(sent.messages).toHaveLength(3);
    expect(sent.messages[2]!.content).toHaveLength(50_001);
    expect(sent.messages[2]!.content.at(-2)!.type).toBe("tool_result");
    expect(sent.messages[2]!.content.at(-1)!.type).toBe("text");
  });
});
