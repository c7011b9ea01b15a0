import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SETUP_TIMEOUT_MS } from "../../../../test/helpers/timeouts";
import { countChatPrompt } from "./count-job";
import { TokenCountThread, TokenCountUnavailable } from "./token-count-thread";
import { loadTotalCounter } from "./total-token-counter";

const count = await loadTotalCounter();
const thread = new TokenCountThread();
// The worker loads the vocabulary (a second or more on a busy machine) before its first count.
beforeAll(() => thread.count({ kind: "text", text: "warm" }, 60_000), SETUP_TIMEOUT_MS);
afterAll(() => thread.stop());

/** Words of 900 random letters, all different (under the long-piece bound): the slowest text for the byte-pair merge. */
function heavyText(characters: number): string {
  let letters = "";
  let seed = 11;
  for (let index = 0; index < 100_000; index++) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    letters += String.fromCharCode(97 + (seed % 26));
  }
  const words: string[] = [];
  for (let offset = 0; words.length * 901 < characters; offset = (offset + 97) % (letters.length - 900)) words.push(letters.slice(offset, offset + 900));
  return words.join(" ");
}

describe("token count thread", () => {
  test("counts on the worker match the counts made on this thread", async () => {
    const body = { messages: [{ role: "user", content: "<|endoftext|> and hello" }, { role: "assistant", content: "a".repeat(50_000) }] };
    expect(await thread.count({ kind: "prompt", body }, 10_000)).toBe(countChatPrompt(body, count));
    expect(await thread.count({ kind: "text", text: "hello world" }, 10_000)).toBe(count("hello world"));
    expect(await thread.count({ kind: "input", input: [[1, 2, 3], "two words"] }, 10_000)).toBe(3 + count("two words"));
  });

  test("a count past its deadline is unavailable, and the worker holding it is let go", async () => {
    const late = thread.count({ kind: "text", text: heavyText(1_000_000) }, 20);
    expect(thread.inFlight).toBe(1);
    const failure = await late.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TokenCountUnavailable);
    expect(String(failure)).toContain("deadline");
    expect(thread.inFlight).toBe(0);
  });

  test("after a deadline the next count is made by a fresh worker", async () => {
    expect(await thread.count({ kind: "text", text: "after the restart" }, 10_000)).toBe(count("after the restart"));
  });

  test("a job whose walk throws (a value nested too deep to serialise) is unavailable, not a crash", async () => {
    let nested: unknown = "deep";
    for (let depth = 0; depth < 200_000; depth++) nested = [nested];
    const body = { messages: [{ role: "user", content: "x", tool_calls: nested }] };
    // Too deep for the structured clone or for JSON.stringify: either way the count is unavailable.
    const failure = await thread.count({ kind: "prompt", body }, 10_000).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(await thread.count({ kind: "text", text: "still counting" }, 10_000)).toBe(count("still counting"));
  });
});
