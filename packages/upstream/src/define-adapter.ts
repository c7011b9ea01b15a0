import type { AdapterDescription } from "./channel-type-descriptor";
import type { ProviderAdapter } from "./provider-adapter";

/**
 * An adapter as its folder states it: the ProviderAdapter, less what most adapters leave at its default. A
 * setting the type does not name does not apply to it (false), and its answers are translated unless it
 * says it relays OpenAI's own format.
 */
export interface AdapterDefinition extends Omit<ProviderAdapter, "description" | "relaysOpenAIFormat"> {
  readonly description: Omit<AdapterDescription, "settings"> & { readonly settings?: Partial<AdapterDescription["settings"]> };
  readonly relaysOpenAIFormat?: boolean;
}

const NO_SETTINGS: AdapterDescription["settings"] = { preset: false, apiVersion: false, structuredOutput: false };

/**
 * The ProviderAdapter an adapter folder's index.ts exports, its defaults filled in (see AdapterDefinition).
 * Run once, when the module loads: the adapter the gateway calls is the plain object it returns.
 */
export function defineAdapter(definition: AdapterDefinition): ProviderAdapter {
  const { description } = definition;
  return {
    ...definition,
    description: { ...description, settings: { ...NO_SETTINGS, ...description.settings } },
    relaysOpenAIFormat: definition.relaysOpenAIFormat ?? false,
  };
}
