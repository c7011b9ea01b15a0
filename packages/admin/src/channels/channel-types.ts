import { adapterFor, channelCredentialProblem, channelTypeDescriptor, channelTypeDescriptors, type ChannelTypeDescriptor, type ChannelTypeSettings, channelTypeIds } from "@tollgate/upstream";

/**
 * The channel types and the settings each takes, read from the adapters' descriptors (packages/upstream's
 * registry), so that the schemas, the operations and the console's form never list types themselves.
 * Read at each call, not once at load: a provider registered later is offered as well.
 */
export function listChannelTypes(): ChannelTypeDescriptor[] {
  return channelTypeDescriptors();
}

/** The refusal of a type that is not registered. */
export function channelTypesMessage(): string {
  return `Must be one of: ${channelTypeIds().join(", ")}`;
}

/** Whether a setting applies to channels of `type` (an unknown type takes none). */
export function settingApplies(type: string, setting: keyof ChannelTypeSettings): boolean {
  return channelTypeDescriptor(type)?.settings[setting] ?? false;
}

/** The refusal of a setting given for a type it does not apply to: "Applies to types a and b only". */
export function appliesOnlyMessage(setting: keyof ChannelTypeSettings): string {
  const types = channelTypeDescriptors()
    .filter((descriptor) => descriptor.settings[setting])
    .map((descriptor) => descriptor.type);
  const named = types.length > 1 ? `${types.slice(0, -1).join(", ")} and ${types.at(-1)}` : (types[0] ?? "none");
  return `Applies to type${types.length > 1 ? "s" : ""} ${named} only`;
}

/**
 * What is wrong with a key given for a channel of `type`, or null: the type's own check for a structured
 * credential (a Vertex service-account JSON key), else one token, since whitespace inside a key would only
 * ever be a copy-and-paste mistake. The message never quotes the key.
 */
export function channelKeyProblem(type: string, apiKey: string): string | null {
  if (adapterFor(type).credentialProblem) return channelCredentialProblem(type, apiKey);
  return /\s/.test(apiKey) ? "Must not contain whitespace" : null;
}
