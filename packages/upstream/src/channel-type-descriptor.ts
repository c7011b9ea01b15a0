/**
 * What the console's form, the admin schemas and the CLI know about a channel type, as plain data (no
 * functions, no imports), so that apps/web can receive it over the console API and nothing outside
 * packages/upstream codes a list of types again.
 */
export interface ChannelTypeDescriptor {
  /** The channel type id stored in `channels.type`: "openai-compatible", "anthropic", ... */
  readonly type: string;
  /** A human name for the form's type list. */
  readonly label: string;
  /**
   * The provider's public endpoint, offered by the form; null when every channel has its own (an Azure
   * resource). `{region}` in it is filled from the channel's region (Bedrock's regional endpoints).
   */
  readonly defaultBaseUrl: string | null;
  /** Which per-channel settings apply to the type (the others are refused by the admin schemas and hidden in the form). */
  readonly settings: ChannelTypeSettings;
  /** What the Responses API switch's default means for the type; null when the switch does not apply. */
  readonly responsesApiDefault: string | null;
  /** The type has a list call a key can make (the console's "Fetch models", the CLI's `channel models`). */
  readonly canListModels: boolean;
  /** Why the type cannot list models, said to the admin who asks; null when it can. */
  readonly cannotListModelsReason: string | null;
}

export interface ChannelTypeSettings {
  /** `preset`: a vendor's base URL (and quirks), among the type's presets (channel-presets.ts). */
  readonly preset: boolean;
  /** `apiVersion`: the data-plane version (Azure). */
  readonly apiVersion: boolean;
  /** `responsesApi`: whether /v1/responses is relayed natively or translated through chat. */
  readonly responsesApi: boolean;
  /** `structuredOutput`: how json_schema output is carried (Anthropic's forced tool or native format). */
  readonly structuredOutput: boolean;
  /** `builtInTools`: upstream-run tools allowed on the channel and their prices. */
  readonly builtInTools: boolean;
  /** `region`: the cloud region requests are signed for and sent to (Bedrock); required where it applies. */
  readonly region: boolean;
  /**
   * `autoCacheBreakpoints`: prompt-cache breakpoints added on the tool definitions and the system prompt of
   * requests translated from OpenAI's format, for clients that cannot send `cache_control` themselves.
   */
  readonly autoCacheBreakpoints: boolean;
  /** `project`: the cloud project the channel's requests go to (Vertex AI). */
  readonly project: boolean;
  /** `location`: the cloud location (region) of the channel's endpoint (Vertex AI). */
  readonly location: boolean;
}

/**
 * The part of the descriptor an adapter states itself; the rest (its type, whether it lists models or
 * speaks the Responses API) is read from the adapter's members, so the two cannot disagree.
 */
export interface AdapterDescription {
  readonly label: string;
  readonly defaultBaseUrl: string | null;
  /** The settings only some types take (region, autoCacheBreakpoints, project, location) are stated only by the types that take them. */
  readonly settings: Pick<ChannelTypeSettings, "preset" | "apiVersion" | "structuredOutput"> & Partial<Pick<ChannelTypeSettings, "region" | "autoCacheBreakpoints" | "project" | "location">>;
  /** See ChannelTypeDescriptor.responsesApiDefault; needed when the adapter speaks the Responses API. */
  readonly responsesApiDefault?: string;
  /** See ChannelTypeDescriptor.cannotListModelsReason; needed when the adapter has no `listModels`. */
  readonly cannotListModelsReason?: string;
  /** Vendors' starting points for a channel of the type, by id (unique across types); `settings.preset` when any. */
  readonly presets?: Readonly<Record<string, { label: string; baseUrl: string; notes?: string }>>;
}
