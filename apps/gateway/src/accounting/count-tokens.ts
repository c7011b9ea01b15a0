import type { TokenUsage } from "@tollgate/shared";
import { type CountJob, jobIsLarge, runCountJob } from "./count-job";
import { TokenCountThread, TokenCountUnavailable } from "./token-count-thread";
import { type Counter, linearTokenEstimate, loadTotalCounter } from "./total-token-counter";

export { textOfContent } from "./count-job";
export { TokenCountUnavailable } from "./token-count-thread";

/**
 * Local token counts for upstreams that report no usage (some vLLM/Ollama set-ups, streams cut short), for
 * the fitted reservation, and for count_tokens without an Anthropic channel. gpt-tokenizer (o200k_base)
 * is loaded on first use only: most upstreams report usage, and the vocabulary costs memory and start-up
 * time. Every count is total (any text, linear time: total-token-counter.ts); a small one is made on this
 * thread, a large one on the counting worker under a deadline, so that no count stalls the other requests.
 * A count that cannot be made rejects with TokenCountUnavailable: the caller bills what it held.
 */

/**
 * Characters (of strings in the counted value) from which a count goes to the worker. Below it a count
 * costs this thread at most ~25 ms (the worst text, words of random letters, counts at about 0.8 µs a
 * character, prose at about 0.6), and a call makes at most two counts (prompt and completion) in a row.
 */
export const INLINE_COUNT_CHARACTERS = 32 * 1024;
let countDeadlineMs = 2_000;
let counter: Counter | null = null;
let loading: Promise<Counter> | null = null;
const countingThread = new TokenCountThread();

export function loadTokenizer(): Promise<Counter> {
  if (counter) return Promise.resolve(counter);
  loading ??= loadTotalCounter().then((loaded) => {
    counter = loaded;
    return loaded;
  });
  return loading;
}

/** The counter when it is already loaded (no await on the hot path); null before the first load. */
export function loadedTokenizer(): Counter | null {
  return counter;
}

/**
 * Time a count on the worker gets (after the vocabulary is loaded); past it the count is unavailable. Set
 * from the gateway's options (countDeadlineMs) as its services are built: the worker is one per process.
 */
export function configureCounting(settings: { deadlineMs: number }): void {
  countDeadlineMs = settings.deadlineMs;
}

/** Counts still on the worker (tests wait for one to be in flight). */
export function countsInFlight(): number {
  return countingThread.inFlight;
}

function countHere(job: CountJob, count: Counter): number {
  try {
    return runCountJob(job, count);
  } catch (error) {
    // The counter itself does not throw; walking the body can (JSON.stringify of a value nested too deep).
    throw new TokenCountUnavailable(String(error));
  }
}

/**
 * The count of a job: a number when it could be made at once on this thread (small, tokenizer loaded), a
 * promise otherwise; rejects (or throws) TokenCountUnavailable when it cannot be made.
 */
export function countJobTokens(job: CountJob): number | Promise<number> {
  if (jobIsLarge(job, INLINE_COUNT_CHARACTERS)) return countingThread.count(job, countDeadlineMs);
  if (counter) return countHere(job, counter);
  return loadTokenizer().then((loaded) => countHere(job, loaded));
}

async function countAsync(job: CountJob): Promise<number> {
  return countJobTokens(job);
}

export function countPromptTokens(body: Record<string, unknown>): Promise<number> {
  return countAsync({ kind: "prompt", body });
}

/** A completion's prompt or an embedding's input: text, texts, token ids or arrays of token ids. */
export function countInputTokens(input: unknown): Promise<number> {
  return countAsync({ kind: "input", input });
}

export function countTextTokens(text: string): Promise<number> {
  return countAsync({ kind: "text", text });
}

/**
 * Usage when no count could be made: the linear rule over the request's bytes and the text produced, so
 * that the log row says roughly what was sent. Billing does not rest on it: such a call is billed its
 * reservation (CallRecord's billReservation).
 */
export function uncountedUsage(requestBytes: number, produced: string): TokenUsage {
  return { promptTokens: Math.ceil(requestBytes / 4), completionTokens: linearTokenEstimate(produced), cachedTokens: 0 };
}
