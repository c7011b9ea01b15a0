import type { TokenUsage } from "@tollgate/shared";
import type { ChatTranslationInput } from "../provider-adapter";
import { extractUsage } from "./extract-usage";

/**
 * Azure answers in OpenAI's `chat.completion` shape (plus `prompt_filter_results` and per-choice
 * `content_filter_results`, which OpenAI clients ignore): passed through, named after the public model
 * instead of the deployment's model version.
 */
export function translateChatResponse(
  upstreamBody: unknown,
  input: ChatTranslationInput,
): { completion: Record<string, unknown>; usage: TokenUsage | null } {
  const completion: Record<string, unknown> = { ...(upstreamBody as Record<string, unknown>), model: input.body.model };
  return { completion, usage: extractUsage(completion.usage) };
}
