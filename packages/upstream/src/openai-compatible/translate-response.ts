import { isRecord } from "@tollgate/shared";
import { extractUsage } from "./extract-usage";

/** A whole answer is OpenAI's own: the completion is the upstream's body, its usage read from it. */
export function translateChatResponse(upstreamBody: unknown): { completion: Record<string, unknown>; usage: ReturnType<typeof extractUsage> } {
  if (!isRecord(upstreamBody)) throw new Error("The upstream answered with a body that is not a JSON object.");
  return { completion: upstreamBody, usage: extractUsage(upstreamBody.usage) };
}
