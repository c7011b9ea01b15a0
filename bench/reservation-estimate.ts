// Hot-path cost of sizing a request's reservation: the cheap bound (a walk of the parsed body, no
// tokenizing) that is held while this instance's quota slice covers it, against the fitted o200k estimate
// computed only when it does not (near the end of a slice, a quota or a balance).
// Usage: bun bench/reservation-estimate.ts
import { loadTokenizer } from "../apps/gateway/src/accounting/count-tokens";
import { fittedPromptTokens, promptUpperBound } from "../apps/gateway/src/accounting/estimate-prompt-tokens";
import { formatTable } from "./lib/format";

const count = await loadTokenizer();
const paragraph =
  "The quarterly report shows revenue growth of 12% over the previous period, driven mainly by the new " +
  "subscription tier; costs rose 4%, mostly in support. Please summarise the risks and list three actions. ";

/** A chat body of about `kilobytes` KB: a system prompt and alternating turns of English prose. */
function chatBody(kilobytes: number): { body: Record<string, unknown>; bytes: number } {
  const messages: Array<{ role: string; content: string }> = [{ role: "system", content: "You are a careful analyst." }];
  while (JSON.stringify(messages).length < kilobytes * 1024) {
    messages.push({ role: messages.length % 2 === 1 ? "user" : "assistant", content: paragraph.repeat(3) });
  }
  const text = JSON.stringify({ model: "gpt-4o", messages });
  // Parsed once per call by the gateway anyway; only the estimate is measured here.
  return { body: JSON.parse(text), bytes: new TextEncoder().encode(text).byteLength };
}

/** µs per call: the best of five rounds after a warm-up round. */
function measure(iterations: number, body: () => void): number {
  const rounds: number[] = [];
  for (let round = 0; round < 6; round++) {
    const started = Bun.nanoseconds();
    for (let index = 0; index < iterations; index++) body();
    if (round > 0) rounds.push((Bun.nanoseconds() - started) / iterations / 1000);
  }
  return Math.min(...rounds);
}

const rows: string[][] = [];
for (const kilobytes of [1, 10, 100]) {
  const { body, bytes } = chatBody(kilobytes);
  const iterations = Math.max(20, Math.round(20_000 / kilobytes));
  const bound = promptUpperBound(body, bytes);
  const cheap = measure(iterations * 10, () => promptUpperBound(body, bytes));
  const fitted = measure(iterations, () => fittedPromptTokens(body, count, "openai", bound));
  rows.push([`${kilobytes} KB`, String(bound), String(fittedPromptTokens(body, count, "openai", bound)), cheap.toFixed(2), fitted.toFixed(1)]);
}
console.log(formatTable(["chat body", "cheap bound (tokens)", "fitted (tokens)", "cheap bound µs/call", "fitted µs/call"], rows));
