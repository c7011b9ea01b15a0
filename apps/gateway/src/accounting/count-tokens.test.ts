import { describe, expect, test } from "bun:test";
import { countInputTokens, countTextTokens } from "./count-tokens";

describe("countInputTokens", () => {
  test("a prompt of token ids counts one token per id, as the upstream would (it counted none before)", async () => {
    expect(await countInputTokens([101, 2023, 2003])).toBe(3);
    expect(await countInputTokens([[1, 2], [3, 4, 5]])).toBe(5);
  });

  test("text and lists of texts are tokenized with o200k", async () => {
    const hello = await countTextTokens("hello world");
    expect(hello).toBeGreaterThan(0);
    expect(await countInputTokens("hello world")).toBe(hello);
    expect(await countInputTokens(["hello world", "hello world"])).toBe(2 * hello);
  });
});
