import { countInput, TOKENS_PER_MESSAGE, TOKENS_PER_REPLY } from "./estimate-prompt-tokens";

/**
 * Local token counts for upstreams that report no usage (some vLLM/Ollama set-ups, streams cut short).
 * gpt-tokenizer (o200k_base) is loaded on first use only: most upstreams report usage, and the
 * vocabulary costs memory and start-up time.
 */
type Counter = (text: string) => number;
let counter: Counter | null = null;
let loading: Promise<Counter> | null = null;

export function loadTokenizer(): Promise<Counter> {
  if (counter) return Promise.resolve(counter);
  loading ??= import("gpt-tokenizer").then((module) => {
    counter = (text: string) => (text ? module.countTokens(text) : 0);
    return counter;
  });
  return loading;
}

/** The counter when it is already loaded (no await on the hot path); null before the first load. */
export function loadedTokenizer(): Counter | null {
  return counter;
}

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

export async function countPromptTokens(body: Record<string, unknown>): Promise<number> {
  const count = await loadTokenizer();
  if (body.prompt !== undefined) return countInputTokens(body.prompt);
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

/** A completion's prompt or an embedding's input: text, texts, token ids or arrays of token ids. */
export async function countInputTokens(input: unknown): Promise<number> {
  return countInput(input, await loadTokenizer());
}

export async function countTextTokens(text: string): Promise<number> {
  return (await loadTokenizer())(text);
}
