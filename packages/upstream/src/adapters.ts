import { anthropicAdapter } from "./anthropic";
import { azureOpenAIAdapter } from "./azure-openai";
import { bedrockAdapter } from "./bedrock";
import type { ChannelTypeDescriptor } from "./channel-type-descriptor";
import { geminiAdapter } from "./gemini";
import { openAICompatibleAdapter } from "./openai-compatible";
import type { ProviderAdapter } from "./provider-adapter";
import { vertexAdapter } from "./vertex";

/** Every channel type's adapter, in the order the console offers them: adding a provider adds its line here. */
const adapters = new Map<string, ProviderAdapter>(
  [openAICompatibleAdapter, anthropicAdapter, geminiAdapter, azureOpenAIAdapter, bedrockAdapter, vertexAdapter].map((adapter) => [adapter.type, adapter]),
);

/** The type of a channel created without one, and the protocol of a type that has no adapter of its own. */
export const DEFAULT_CHANNEL_TYPE = openAICompatibleAdapter.type;

/** The adapter of a channel type; a type without one of its own is relayed as OpenAI-compatible. */
export function adapterFor(type: string): ProviderAdapter {
  return adapters.get(type) ?? openAICompatibleAdapter;
}

/**
 * Adds an adapter from outside this package (a plugin, or the "add a provider" recipe's test): its type is
 * offered by the admin schemas and the console's form and routed like a built-in one from then on. A
 * provider of this package is a line in the list above instead.
 */
export function registerProviderAdapter(adapter: ProviderAdapter): () => void {
  if (adapters.has(adapter.type)) throw new Error(`A provider adapter of type ${JSON.stringify(adapter.type)} is already registered`);
  adapters.set(adapter.type, adapter);
  /** Takes it out again (a test's cleanup). */
  return () => {
    if (adapters.get(adapter.type) === adapter) adapters.delete(adapter.type);
  };
}

/** Whether channels of `type` can be created (a registered adapter's type). */
export function isChannelType(type: string): boolean {
  return adapters.has(type);
}

/** The registered channel types, in the registry's order. */
export function channelTypeIds(): string[] {
  return [...adapters.keys()];
}

/** What an adapter says about itself, with what its members show (it lists models, it speaks the Responses API). */
export function describeAdapter(adapter: ProviderAdapter): ChannelTypeDescriptor {
  const { description } = adapter;
  const speaksResponses = adapter.speaksResponsesApi !== undefined && adapter.buildResponsesRequest !== undefined;
  const canListModels = adapter.listModels !== undefined;
  return {
    type: adapter.type,
    label: description.label,
    defaultBaseUrl: description.defaultBaseUrl,
    settings: { region: false, autoCacheBreakpoints: false, project: false, location: false, ...description.settings, responsesApi: speaksResponses, builtInTools: true },
    responsesApiDefault: speaksResponses ? (description.responsesApiDefault ?? "by the upstream") : null,
    canListModels,
    cannotListModelsReason: canListModels ? null : (description.cannotListModelsReason ?? `A ${description.label} channel has no model list call; enter its models by hand.`),
  };
}

/** Why `key` cannot be a credential of channels of `type` (the adapter's reading), or null when it can. */
export function channelCredentialProblem(type: string, key: string): string | null {
  return adapters.get(type)?.credentialProblem?.(key) ?? null;
}

/** Every registered type's descriptor (plain data: the console sends it to the form as it is). */
export function channelTypeDescriptors(): ChannelTypeDescriptor[] {
  return [...adapters.values()].map(describeAdapter);
}

/** The descriptor of a registered type, or undefined. */
export function channelTypeDescriptor(type: string): ChannelTypeDescriptor | undefined {
  const adapter = adapters.get(type);
  return adapter ? describeAdapter(adapter) : undefined;
}
