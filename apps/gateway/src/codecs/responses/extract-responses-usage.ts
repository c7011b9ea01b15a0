import { isRecord, type TokenUsage } from "@tollgate/shared";
import { extractUsage } from "@tollgate/upstream";

/**
 * A Response object's `usage` -> the gateway's TokenUsage (input, output, cache reads from
 * `input_tokens_details.cached_tokens`, cache writes when the details carry them); null when absent.
 */
export function extractResponsesUsage(response: unknown): TokenUsage | null {
  if (!isRecord(response) || !isRecord(response.usage)) return null;
  const usage = response.usage;
  if (typeof usage.input_tokens !== "number" || typeof usage.output_tokens !== "number") return null;
  return extractUsage({ input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, input_tokens_details: usage.input_tokens_details });
}

/** The text and call arguments a Response object holds, for a local count when it carries no usage. */
export function responseOutputText(response: unknown): string {
  if (!isRecord(response) || !Array.isArray(response.output)) return "";
  const texts: string[] = [];
  for (const item of response.output) {
    if (!isRecord(item)) continue;
    if (typeof item.arguments === "string") texts.push(item.arguments);
    for (const part of Array.isArray(item.content) ? item.content : []) {
      if (isRecord(part) && typeof part.text === "string") texts.push(part.text);
    }
  }
  return texts.join("");
}
