import { describe, expect, test } from "bun:test";
import { anthropicChatParameters } from "../anthropic/chat-parameters";
import { geminiChatParameters } from "../gemini/chat-parameters";
import { TranslationError } from "../provider-adapter";
import { refuseUncarriedParameters, refusedUnless, translated } from "./chat-parameters";

const table = { model: translated, n: refusedUnless("1", (value) => value === 1) };

function refusal(body: Record<string, unknown>): TranslationError | null {
  try {
    refuseUncarriedParameters(body, table, "a test upstream");
    return null;
  } catch (error) {
    if (error instanceof TranslationError) return error;
    throw error;
  }
}

describe("refuseUncarriedParameters", () => {
  test("null values count as absent, no-op values pass, others are refused naming the parameter and its no-op", () => {
    expect(refusal({ model: "m", n: null, extra: null })).toBeNull();
    expect(refusal({ model: "m", n: 1 })).toBeNull();
    const error = refusal({ model: "m", n: 3 })!;
    expect([error.param, error.code]).toEqual(["n", "unsupported_parameter"]);
    expect(error.message).toContain("a test upstream");
    expect(error.message).toContain("only 1");
  });

  test("a parameter the table does not know is refused too, its name clipped", () => {
    expect(refusal({ model: "m", guided_json: {} })).toMatchObject({ param: "guided_json", code: "unsupported_parameter" });
    expect(refusal({ model: "m", ["x".repeat(500)]: 1 })!.param).toHaveLength(64);
    expect(refusal({ model: "m", constructor: 1 })).toMatchObject({ param: "constructor" });
  });

  test("the README's parameter table names every parameter the adapters know", async () => {
    const readme = await Bun.file(new URL("../../../../README.md", import.meta.url)).text();
    const section = readme.slice(readme.indexOf("## The API"), readme.indexOf("\n## ", readme.indexOf("## The API") + 1));
    const names = new Set([...Object.keys(anthropicChatParameters), ...Object.keys(geminiChatParameters)]);
    expect([...names].filter((name) => !section.includes(`\`${name}\``))).toEqual([]);
  });
});
