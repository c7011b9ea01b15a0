import { describe, expect, test } from "bun:test";
import { carriesUsage } from "./relay-chat-stream";

describe("usage detection in relayed chunks", () => {
  test("a usage object is detected, a null or absent one is not", () => {
    expect(carriesUsage('{"choices":[],"usage":{"prompt_tokens":3}}')).toBe(true);
    expect(carriesUsage('{"choices":[{"delta":{"content":"x"}}],"usage": {"prompt_tokens":3}}')).toBe(true);
    expect(carriesUsage('{"choices":[{"delta":{"content":"x"}}],"usage":null}')).toBe(false);
    expect(carriesUsage('{"choices":[{"delta":{"content":"x"}}],"usage" : null}')).toBe(false);
    expect(carriesUsage('{"choices":[{"delta":{"content":"x"}}]}')).toBe(false);
  });

  test("the word usage inside the content does not count, a real usage after it does", () => {
    expect(carriesUsage('{"choices":[{"delta":{"content":"the \\"usage\\" word"}}],"usage":null}')).toBe(false);
    expect(carriesUsage('{"choices":[{"delta":{"content":"\\"usage\\""}}],"usage":{"completion_tokens":1}}')).toBe(true);
  });
});
