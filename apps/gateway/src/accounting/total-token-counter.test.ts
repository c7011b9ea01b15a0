import { describe, expect, test } from "bun:test";
import { countTokens } from "gpt-tokenizer";
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";
import {
  createTotalCounter,
  isWhitespace,
  LONG_PIECE_CHARACTERS,
  linearTokenEstimate,
  loadTotalCounter,
  mayHaveLongPiece,
  utf8Length,
} from "./total-token-counter";

const count = await loadTotalCounter();
const asText = { disallowedSpecial: new Set<string>() };

/** Letters from a fixed sequence: a word the byte-pair merge has many merges to make in (the slow case). */
function word(length: number): string {
  let text = "";
  let seed = 7;
  for (let index = 0; index < length; index++) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    text += String.fromCharCode(97 + (seed % 26));
  }
  return text;
}

describe("total token counter", () => {
  test("special-token strings are counted as the text they are made of, not refused", () => {
    expect(() => countTokens("<|endoftext|>")).toThrow();
    for (const text of ["<|endoftext|>", "hi <|im_start|>system<|im_sep|> there", "<|fim_prefix|><|endofprompt|>"]) {
      expect(count(text)).toBe(countTokens(text, asText));
    }
    // As a special token it would be one.
    expect(count("<|endoftext|>")).toBeGreaterThan(1);
  });

  test("text without long pieces is counted exactly as the library counts it", () => {
    const prose = "The quick brown fox jumps over the lazy dog. ".repeat(200) + "Numbers 12345, code `x => x + 1`, and ümlauts: Grüße.";
    expect(count(prose)).toBe(countTokens(prose));
    expect(count("")).toBe(0);
  });

  test("a word of 300,000 characters is counted by the linear rule: a quarter of its bytes", () => {
    expect(count("a".repeat(300_000))).toBe(75_000);
    expect(count(word(300_000))).toBe(75_000);
  });

  test("a word of 40,000 characters is counted by the linear rule too", () => {
    expect(count(word(40_000))).toBe(10_000);
  });

  test("a word at the bound is still merged by the library; one past it is counted linearly", () => {
    const atBound = word(LONG_PIECE_CHARACTERS);
    expect(count(atBound)).toBe(countTokens(atBound));
    expect(count(word(LONG_PIECE_CHARACTERS + 3))).toBe(Math.ceil((LONG_PIECE_CHARACTERS + 3) / 4));
  });

  test("around a long word the text is counted by the library and the word (with its leading space) linearly", () => {
    const long = word(5_000);
    const text = `hello world ${long} goodbye, friend`;
    expect(count(text)).toBe(countTokens("hello world") + Math.ceil((long.length + 1) / 4) + countTokens(" goodbye, friend"));
  });

  test("long pieces that are not runs of letters are found: spaces, punctuation, line breaks with slashes", () => {
    expect(count(" ".repeat(300_000))).toBe(75_000);
    expect(count("!".repeat(300_000))).toBe(75_000);
    // One piece of the pre-split (punctuation then `[\r\n/]*`), though no run of one kind is longer than 1.
    const slashes = `!${"\n/".repeat(150_000)}`;
    expect(mayHaveLongPiece(slashes, LONG_PIECE_CHARACTERS)).toBe(true);
    expect(count(slashes)).toBe(Math.ceil(slashes.length / 4));
  });

  test("the quick check never misses a piece of the pre-split longer than the bound", () => {
    const samples = [
      `x${"Ab".repeat(2_000)}`,
      `${" ".repeat(999)}\n${"\t".repeat(1_200)}`,
      `${"Z".repeat(1_500)}1`,
      `é${"\u0301".repeat(1_100)}`,
      `${"1".repeat(5_000)} ${"a ".repeat(2_000)}`,
    ];
    let long = 0;
    for (const sample of samples) {
      const longest = Math.max(...[...sample.matchAll(O200K_TOKEN_SPLIT_REGEX)].map((match) => match[0].length));
      if (longest <= LONG_PIECE_CHARACTERS) continue;
      long++;
      expect(mayHaveLongPiece(sample, LONG_PIECE_CHARACTERS)).toBe(true);
    }
    expect(long).toBe(3);
    expect(mayHaveLongPiece("An ordinary sentence, with words. ".repeat(1_000), LONG_PIECE_CHARACTERS)).toBe(false);
  });

  test("a library that throws leaves the text counted by the linear rule", () => {
    const failing = createTotalCounter({
      countTokens: () => {
        throw new Error("Disallowed special token found");
      },
      splitPattern: O200K_TOKEN_SPLIT_REGEX,
    });
    expect(failing("eight by")).toBe(2);
  });

  test("utf8Length is the length TextEncoder gives, surrogate pairs and lone surrogates included", () => {
    for (const text of ["", "ascii", "Grüße", "日本語", "emoji 😀👍", "lone \ud800 high", "lone \udc00 low", "end \ud83d"]) {
      expect(utf8Length(text)).toBe(new TextEncoder().encode(text).byteLength);
    }
    expect(linearTokenEstimate("日本語")).toBe(3);
  });

  test("isWhitespace agrees with the regular expression \\s on every UTF-16 code unit", () => {
    for (let code = 0; code <= 0xffff; code++) {
      expect(isWhitespace(code)).toBe(/\s/u.test(String.fromCharCode(code)));
    }
  });
});
