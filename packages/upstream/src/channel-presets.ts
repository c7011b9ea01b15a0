import { adapterFor, channelTypeIds } from "./adapters";

/** A vendor's starting point for a channel: its base URL (and, for some types, quirks the adapter reads by id). */
export interface ChannelPreset {
  label: string;
  baseUrl: string;
  notes?: string;
}

/** A preset as the console's form and the CLI offer it: with its id and the channel type it is for. */
export interface ChannelPresetEntry {
  id: string;
  type: string;
  label: string;
  baseUrl: string;
  notes: string | null;
}

/**
 * Every registered adapter's presets (its description's `presets`), in the registry's order. Ids are unique
 * across types (`deepseek` for the OpenAI-compatible API, `deepseek-anthropic` for the Anthropic one), so a
 * preset alone says which type a new channel is.
 */
export function channelPresets(): ChannelPresetEntry[] {
  const entries: ChannelPresetEntry[] = [];
  for (const type of channelTypeIds()) {
    for (const [id, preset] of Object.entries(adapterFor(type).description.presets ?? {})) {
      entries.push({ id, type, label: preset.label, baseUrl: preset.baseUrl, notes: preset.notes ?? null });
    }
  }
  return entries;
}

/** The preset with this id, whatever its type; undefined for an unknown id. */
export function channelPreset(id: string): ChannelPresetEntry | undefined {
  return channelPresets().find((preset) => preset.id === id);
}
