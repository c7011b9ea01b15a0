import { beforeAll, describe, expect, test } from "bun:test";
import { SETUP_TIMEOUT_MS } from "../../../../test/helpers/timeouts";
import {
  countInputTokens,
  countPromptTokens,
  countsInFlight,
  countTextTokens,
  loadTokenizer,
  uncountedUsage,
} from "./count-tokens";
import { TOKENS_PER_MESSAGE, TOKENS_PER_REPLY } from "./estimate-prompt-tokens";

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

describe("count-tokens", () => {
  // The counting worker loads the vocabulary (a second or more on a busy machine) before its first count.
  beforeAll(() => countTextTokens("x"), SETUP_TIMEOUT_MS);

  test("a chat prompt quoting special tokens is counted as text, like any other prompt", async () => {
    const quoting = await countPromptTokens({ messages: [{ role: "user", content: "say <|endoftext|> then <|im_start|>" }] });
    const plain = await countPromptTokens({ messages: [{ role: "user", content: "hello" }] });
    expect(quoting).toBeGreaterThan(plain);
  });

  test("a text is counted on the worker, to the same figure as on this thread", async () => {
    const text = "Tokens are counted off the request thread, whatever their size. ".repeat(600);
    const counted = countTextTokens(text);
    expect(countsInFlight()).toBe(1);
    expect(await counted).toBe((await loadTokenizer())(text));
    expect(countsInFlight()).toBe(0);
  });

  test("a prompt of one 300,000-character word is counted by the linear rule", async () => {
    const prompt = await countPromptTokens({ messages: [{ role: "user", content: "a".repeat(300_000) }] });
    expect(prompt).toBe(TOKENS_PER_REPLY + TOKENS_PER_MESSAGE + 1 + 75_000);
  });

  test("a small count is made on the worker too: the request thread never loads the vocabulary", async () => {
    const counted = countTextTokens("hello world");
    expect(countsInFlight()).toBe(1);
    expect(await counted).toBe((await loadTokenizer())("hello world"));
  });

  test("usage that could not be counted is a quarter of the request's bytes and of the text produced", () => {
    expect(uncountedUsage(4_001, "twelve bytes")).toEqual({ promptTokens: 1_001, completionTokens: 3, cachedTokens: 0 });
  });
});
