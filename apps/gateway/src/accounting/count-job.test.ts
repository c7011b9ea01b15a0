import { describe, expect, test } from "bun:test";
import { jobIsLarge } from "./count-job";

describe("jobIsLarge", () => {
  test("a text is large from the limit's length on", () => {
    expect(jobIsLarge({ kind: "text", text: "x".repeat(99) }, 100)).toBe(false);
    expect(jobIsLarge({ kind: "text", text: "x".repeat(100) }, 100)).toBe(true);
  });

  test("a body is sized by all of its strings together, not by its largest one", () => {
    const messages = Array.from({ length: 40 }, () => ({ role: "user", content: "y".repeat(30) }));
    expect(jobIsLarge({ kind: "prompt", body: { messages: messages.slice(0, 2) } }, 1_000)).toBe(false);
    expect(jobIsLarge({ kind: "prompt", body: { messages } }, 1_000)).toBe(true);
  });

  test("a long list of token ids is large, and nesting deeper than the stack allows is walked without overflow", () => {
    expect(jobIsLarge({ kind: "input", input: Array.from({ length: 5_000 }, (_, index) => index) }, 1_000)).toBe(true);
    let nested: unknown = "leaf";
    for (let depth = 0; depth < 500_000; depth++) nested = [nested];
    expect(jobIsLarge({ kind: "input", input: nested }, 1_000_000)).toBe(false);
    expect(jobIsLarge({ kind: "input", input: nested }, 1_000)).toBe(true);
  });
});
