import { describe, expect, test } from "bun:test";
import { clipClientValue, GatewayError, MAX_ERROR_MESSAGE_LENGTH } from "./errors";
import { checkAnthropicIdentifiers, checkIdentifier, checkModelName, checkOpenAIIdentifiers, identifierProblem } from "./validate-identifiers";

function refusal(check: () => void): GatewayError {
  try {
    check();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("identifierProblem", () => {
  test("accepts the model names in use: slashes, colons, dots, @, non-ASCII letters", () => {
    for (const name of ["gpt-4o-mini", "anthropic/claude-3.5-sonnet:beta", "models/gemini-2.5-flash", "qwen2.5@72b", "模型-一", "m".repeat(256)]) {
      expect(identifierProblem(name, 256)).toBeNull();
    }
  });

  test("refuses a name past its bound, a control character anywhere, and a lone surrogate", () => {
    expect(identifierProblem("m".repeat(257), 256)).toBe("is longer than 256 characters");
    for (const name of ["gpt\u0000", "a\nb", "tab\there", "del\u007f", "c1\u0085", "\u001b[31m"]) {
      expect(identifierProblem(name, 256)).toBe("contains a control character");
    }
    expect(identifierProblem("half \ud83d pair", 256)).toBe("is not well-formed Unicode");
  });
});

describe("checkIdentifier and checkModelName", () => {
  test("answer 400 invalid_value naming the field, quoting at most 64 characters of the value", () => {
    const error = refusal(() => checkModelName("x".repeat(8 * 1024 * 1024)));
    expect(error.status).toBe(400);
    expect(error.toEnvelope().error).toMatchObject({ type: "invalid_request_error", code: "invalid_value", param: "model" });
    expect(error.message).toBe(`'model' is longer than 256 characters: '${"x".repeat(64)}…'.`);
  });

  test("a value that is not a string is refused as such", () => {
    expect(refusal(() => checkIdentifier(7, "user", 256)).message).toBe("'user' must be a string.");
  });
});

describe("checkOpenAIIdentifiers", () => {
  test("passes OpenAI's own maximums: 16 metadata pairs, 64-character keys, 512-character values, a 256-character user", () => {
    const metadata = Object.fromEntries(Array.from({ length: 16 }, (_, index) => [`${index}`.padEnd(64, "k"), "v".repeat(512)]));
    expect(() => checkOpenAIIdentifiers({ user: "u".repeat(256), metadata, messages: [{ role: "user", name: "alice" }] })).not.toThrow();
    expect(() => checkOpenAIIdentifiers({ user: null, metadata: null, messages: "not checked here" })).not.toThrow();
  });

  test("names the field that is over a bound", () => {
    const tooMany = Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, "v"]));
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ user: "u".repeat(257) }, "user"],
      [{ metadata: tooMany }, "metadata"],
      [{ metadata: { ["k".repeat(65)]: "v" } }, "metadata"],
      [{ metadata: { key: "v".repeat(513) } }, "metadata.key"],
      [{ metadata: { key: null } }, "metadata.key"],
      [{ metadata: "a string" }, "metadata"],
      [{ messages: [{ role: "user" }, { role: "user", name: "bob\n" }] }, "messages[1].name"],
    ];
    for (const [body, param] of cases) expect(refusal(() => checkOpenAIIdentifiers(body)).param).toBe(param);
  });
});

describe("checkAnthropicIdentifiers", () => {
  test("bounds metadata.user_id as Anthropic does (256) and refuses a metadata that is not an object", () => {
    expect(() => checkAnthropicIdentifiers({ metadata: { user_id: "u".repeat(256) } })).not.toThrow();
    expect(refusal(() => checkAnthropicIdentifiers({ metadata: { user_id: "u".repeat(257) } })).param).toBe("metadata.user_id");
    expect(refusal(() => checkAnthropicIdentifiers({ metadata: [] })).param).toBe("metadata");
  });
});

describe("error messages", () => {
  test("clipClientValue keeps 64 characters, marks the cut and escapes control characters", () => {
    expect(clipClientValue("short")).toBe("short");
    expect(clipClientValue("a\u0000b")).toBe("a\\u0000b");
    expect(clipClientValue("y".repeat(65))).toBe(`${"y".repeat(64)}…`);
  });

  test("no GatewayError message is longer than the cap, whoever built it", () => {
    const error = new GatewayError("e".repeat(100_000), { status: 502, code: null });
    expect(error.message.length).toBe(MAX_ERROR_MESSAGE_LENGTH + 1);
  });
});
