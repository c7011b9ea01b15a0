import type { TokenUsage } from "@tollgate/shared";
import type { CountJob } from "./count-job";
import { TokenCountThread, TokenCountUnavailable } from "./token-count-thread";
import { type Counter, linearTokenEstimate, loadTotalCounter } from "./total-token-counter";

export { textOfContent } from "./count-job";
export { TokenCountUnavailable } from "./token-count-thread";

/**
 * Local token counts for upstreams that report no usage (some vLLM/Ollama set-ups, streams cut short), for
 * the fitted reservation, and for count_tokens without an Anthropic channel. Every count is total (any text,
 * linear time: total-token-counter.ts) and made on the counting worker under a deadline, whatever its size:
 * loading gpt-tokenizer's o200k vocabulary is a synchronous module evaluation of several hundred
 * milliseconds, which on this thread would stall every other request once (measured: a 357 ms event-loop
 * stall on the first small count), and its ~60 MB would be held twice. The worker is started on first need
 * and loads the vocabulary off this thread. A count that cannot be made rejects with TokenCountUnavailable:
 * the caller bills what it held.
 */

let countDeadlineMs = 2_000;
let counter: Counter | null = null;
let loading: Promise<Counter> | null = null;
const countingThread = new TokenCountThread();

/** The counter on this thread: for tests and benches that need the reference count, never for requests. */
export function loadTokenizer(): Promise<Counter> {
  if (counter) return Promise.resolve(counter);
  loading ??= loadTotalCounter().then((loaded) => {
    counter = loaded;
    return loaded;
  });
  return loading;
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

/** The count of a job, made on the counting worker; rejects TokenCountUnavailable when it cannot be made. */
export function countJobTokens(job: CountJob): Promise<number> {
  return countingThread.count(job, countDeadlineMs);
}

export function countPromptTokens(body: Record<string, unknown>): Promise<number> {
  return countJobTokens({ kind: "prompt", body });
}

/** A completion's prompt or an embedding's input: text, texts, token ids or arrays of token ids. */
export function countInputTokens(input: unknown): Promise<number> {
  return countJobTokens({ kind: "input", input });
}

export function countTextTokens(text: string): Promise<number> {
  return countJobTokens({ kind: "text", text });
}

/**
 * Usage when no count could be made: the linear rule over the request's bytes and the text produced, so
 * that the log row says roughly what was sent. Billing does not rest on it: such a call is billed its
 * reservation (CallRecord's billReservation).
 */
export function uncountedUsage(requestBytes: number, produced: string): TokenUsage {
  return { promptTokens: Math.ceil(requestBytes / 4), completionTokens: linearTokenEstimate(produced), cachedTokens: 0 };
}
