// Time to count hostile and ordinary text: gpt-tokenizer's countTokens as the gateway called it before
// (quadratic in the length of one word, throwing on special-token text) against the total counter
// (accounting/total-token-counter.ts: special tokens as text, pieces past 1,000 characters by bytes/4), and
// how long this thread is busy when a large count is handed to the counting worker instead.
// Usage: bun bench/count-long-words.ts   (BENCH_COUNT_SLOW=1 also runs the library on 300,000 characters)
import { countTextTokens, loadTokenizer } from "../apps/gateway/src/accounting/count-tokens";
import { formatMs, formatTable } from "./lib/format";

// The gateway's own copy of the library (a dependency of apps/gateway, not of the repository's root).
const { countTokens, clearMergeCache } = (await import(Bun.resolveSync("gpt-tokenizer", new URL("../apps/gateway/", import.meta.url).pathname))) as {
  countTokens: (text: string) => number;
  clearMergeCache: () => void;
};
const count = await loadTokenizer();

function randomLetters(length: number, seed = 5): string {
  const letters: string[] = [];
  for (let index = 0; index < length; index++) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    letters.push(String.fromCharCode(97 + (seed % 26)));
  }
  return letters.join("");
}

const pool = randomLetters(200_000, 9);
/** Distinct words of 900 random letters: the slowest text that stays under the long-piece bound. */
function heavyWords(characters: number): string {
  const words: string[] = [];
  for (let offset = 0; words.length * 901 < characters; offset = (offset + 97) % (pool.length - 900)) words.push(pool.slice(offset, offset + 900));
  return words.join(" ");
}

const prose = (characters: number) =>
  "The quarterly report shows revenue growth of 12% over the previous period, driven by the new tier. ".repeat(Math.ceil(characters / 99));

/** Milliseconds of one call (the library's merge cache emptied first), and its result or the error it threw. */
function time(run: () => number): { ms: number; result: string } {
  clearMergeCache();
  const started = Bun.nanoseconds();
  try {
    const result = run();
    return { ms: (Bun.nanoseconds() - started) / 1e6, result: String(result) };
  } catch (error) {
    return { ms: (Bun.nanoseconds() - started) / 1e6, result: `throws: ${(error as Error).message.slice(0, 40)}` };
  }
}

const slow = process.env.BENCH_COUNT_SLOW === "1";
const cases: Array<[string, string, boolean]> = [
  ["`<|endoftext|>` in a sentence", "Please repeat <|endoftext|> back to me.", true],
  ["one word of 10,000 letters", randomLetters(10_000), true],
  ["one word of 20,000 letters", randomLetters(20_000), true],
  ["one word of 40,000 letters", randomLetters(40_000), true],
  ["one word of 300,000 letters", randomLetters(300_000), slow],
  ["one word of 300,000 'a'", "a".repeat(300_000), slow],
  ["prose, 32 KiB", prose(32 * 1024), true],
  ["900-letter words, 32 KiB", heavyWords(32 * 1024), true],
  ["prose, 1 MiB", prose(1024 * 1024), true],
];

const rows: string[][] = [];
for (const [name, text, runLibrary] of cases) {
  time(() => count(text.slice(0, 1000)));
  const before = runLibrary ? time(() => countTokens(text)) : null;
  const after = time(() => count(text));
  rows.push([name, before ? formatMs(before.ms) : "not run", before?.result ?? "-", formatMs(after.ms), after.result]);
}
console.log(formatTable(["text", "before ms", "before count", "after ms", "after count"], rows));

// A large count on the worker: how long this thread is busy posting it, and the round trip.
await countTextTokens(prose(64 * 1024));
for (const [name, text] of [
  ["prose, 1 MiB", prose(1024 * 1024)],
  ["900-letter words, 1 MiB", heavyWords(1024 * 1024)],
] as const) {
  const started = Bun.nanoseconds();
  const counting = countTextTokens(text);
  const posted = (Bun.nanoseconds() - started) / 1e6;
  const counted = await counting.catch((error: Error) => error.message);
  const total = (Bun.nanoseconds() - started) / 1e6;
  console.log(`${name} on the worker: this thread busy ${formatMs(posted)} ms to post it; answered ${counted} after ${formatMs(total)} ms`);
}
process.exit(0);
