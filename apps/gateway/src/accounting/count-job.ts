import { countInput, countPromptForReservation, TOKENS_PER_MESSAGE, TOKENS_PER_REPLY } from "./estimate-prompt-tokens";
import type { Counter } from "./total-token-counter";

/**
 * One count, as plain data: what is posted to the counting worker (token-count-thread.ts), which runs it
 * with runCountJob.
 */
export type CountJob =
  /** A chat request's prompt as the upstream's usage counts it (usage estimated after the answer). */
  | { kind: "prompt"; body: Record<string, unknown> }
  /** The prompt as the reservation counts it (estimate-prompt-tokens.ts), without its margin. */
  | { kind: "reservation"; body: Record<string, unknown> }
  /** A completion's prompt or an embedding's input: text, texts or token ids. */
  | { kind: "input"; input: unknown }
  | { kind: "text"; text: string };

export function textOfContent(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content) {
    if (part && typeof part === "object" && typeof (part as { text?: unknown }).text === "string") {
      text += (part as { text: string }).text;
    }
  }
  return text;
}

/** The prompt of an OpenAI chat body (or a completion's `prompt`), counted as OpenAI's cookbook counts the chat format. */
export function countChatPrompt(body: Record<string, unknown>, count: Counter): number {
  if (body.prompt !== undefined) return countInput(body.prompt, count);
  const messages = Array.isArray(body.messages) ? body.messages : [];
  let total = TOKENS_PER_REPLY;
  for (const message of messages as Array<Record<string, unknown>>) {
    total += TOKENS_PER_MESSAGE + count(String(message?.role ?? "")) + count(textOfContent(message?.content));
    if (message?.tool_calls) total += count(JSON.stringify(message.tool_calls));
    if (typeof message?.name === "string") total += 1 + count(message.name);
  }
  if (body.tools) total += count(JSON.stringify(body.tools));
  return total;
}

export function runCountJob(job: CountJob, count: Counter): number {
  switch (job.kind) {
    case "prompt":
      return countChatPrompt(job.body, count);
    case "reservation":
      return countPromptForReservation(job.body, count);
    case "input":
      return countInput(job.input, count);
    case "text":
      return count(job.text);
  }
}
