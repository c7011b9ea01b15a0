import { anthropicAdapter } from "./anthropic";
import { azureOpenAIAdapter } from "./azure-openai";
import { geminiAdapter } from "./gemini";
import { openAICompatibleAdapter } from "./openai-compatible";
import type { ProviderAdapter } from "./provider-adapter";

/** Every channel type's adapter. */
const adapters = new Map<string, ProviderAdapter>(
  [openAICompatibleAdapter, anthropicAdapter, geminiAdapter, azureOpenAIAdapter].map((adapter) => [adapter.type, adapter]),
);

/** The adapter of a channel type; a type without one of its own is relayed as OpenAI-compatible. */
export function adapterFor(type: string): ProviderAdapter {
  return adapters.get(type) ?? openAICompatibleAdapter;
}
