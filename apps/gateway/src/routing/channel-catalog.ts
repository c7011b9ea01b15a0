import { type ChannelConfig, channels, type Database, modelPrices } from "@tollgate/db";
import {
  channelKeyBinding,
  DEFAULT_UPSTREAM_ADDRESS_POLICY,
  type PriceUnit,
  type SecretBox,
  type UnitModelPrice,
  type UpstreamAddressPolicy,
  upstreamAddressRefusal,
} from "@tollgate/shared";
import { adapterFor, type ProviderAdapter } from "@tollgate/upstream";
import { ReloadableSnapshot } from "../reloadable-snapshot";

/**
 * A channel as the router uses it, with its key decrypted and its adapter found once per load. It is the
 * AdapterChannel its adapter is given (base URL, key, config).
 */
export interface RoutableChannel {
  id: number;
  name: string;
  type: string;
  baseUrl: string;
  apiKey: string;
  models: string[];
  modelMapping: Record<string, string>;
  groups: Set<string>;
  priority: number;
  weight: number;
  enabled: boolean;
  config: ChannelConfig & Record<string, unknown>;
  createdAt: number;
  /** The adapter of the channel's type (openai-compatible for a type this version does not know). */
  adapter: ProviderAdapter;
}

export interface PricedModel extends UnitModelPrice {
  ownedBy: string | null;
  /** Completion tokens held when a request names no max_tokens; null: the global setting. */
  defaultMaxTokens: number | null;
  /** Models tried in order when this one cannot serve a call (pipeline/model-fallback.ts); null: none. */
  fallbacks: readonly string[] | null;
  /** Context window in tokens; null: unknown (never checked). */
  contextWindow: number | null;
  /** Micro-USD billed for an answer served from the response cache (model_prices.cache_hit_price). */
  cacheHitPrice: number;
}

/** An immutable picture of every channel and price; replaced whole on any change. */
export interface CatalogSnapshot {
  /** Public model id -> channels listing it (enabled or not). */
  channelsByModel: Map<string, RoutableChannel[]>;
  prices: Map<string, PricedModel>;
  loadedAt: number;
}

/** A channel row as the router uses it, with its key already decrypted. */
export function toRoutableChannel(row: typeof channels.$inferSelect, apiKey: string): RoutableChannel {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    baseUrl: row.baseUrl.replace(/\/+$/, ""),
    apiKey,
    models: row.models,
    modelMapping: row.modelMapping ?? {},
    groups: new Set(row.groups),
    priority: row.priority,
    weight: Math.max(0, row.weight),
    enabled: row.status === "enabled",
    config: (row.config ?? {}) as ChannelConfig & Record<string, unknown>,
    createdAt: row.createdAt.getTime(),
    adapter: adapterFor(row.type),
  };
}

/**
 * Channels and prices are small tables: they are loaded whole, kept in memory and reloaded when a NOTIFY
 * says one changed (see ReloadableSnapshot: until the reload lands, callers wait on it rather than route on
 * a stale picture, and refresh() re-reads them in the background once their max age has passed).
 */
export class ChannelCatalog extends ReloadableSnapshot<CatalogSnapshot> {
  constructor(db: Database, secretBox: SecretBox, log: CatalogLog = () => {}, addressPolicy: UpstreamAddressPolicy = DEFAULT_UPSTREAM_ADDRESS_POLICY) {
    super(
      () => loadCatalog(db, secretBox, log, addressPolicy),
      (error) => log("channel catalog could not be re-read; the cached one stays in service", { error: String(error) }),
    );
  }
}

type CatalogLog = (message: string, fields?: Record<string, unknown>) => void;

/** Every channel whose address the policy allows and whose key decrypts, by model, and every price. */
async function loadCatalog(db: Database, secretBox: SecretBox, log: CatalogLog, addressPolicy: UpstreamAddressPolicy): Promise<CatalogSnapshot> {
  const [channelRows, priceRows] = await Promise.all([
    db.select().from(channels),
    db.select().from(modelPrices),
  ]);
  const channelsByModel = new Map<string, RoutableChannel[]>();
  for (const row of channelRows) {
    // The address was checked when it was saved; checked again here because the policy may have tightened
    // since, or the row been written by hand. Only literal addresses: a DNS lookup would hold up the reload.
    const addressRefusal = upstreamAddressRefusal(row.baseUrl, addressPolicy);
    if (addressRefusal !== null) {
      log("channel base URL is refused by the upstream address policy; channel skipped", { channel: row.id, reason: addressRefusal });
      continue;
    }
    let apiKey: string;
    try {
      apiKey = await secretBox.decrypt(row.apiKeyEncrypted, channelKeyBinding(row.id));
    } catch {
      log("channel key cannot be decrypted with TOLLGATE_SECRET for this row; channel skipped", { channel: row.id });
      continue;
    }
    const channel = toRoutableChannel(row, apiKey);
    for (const model of row.models) {
      const list = channelsByModel.get(model);
      if (list) list.push(channel);
      else channelsByModel.set(model, [channel]);
    }
  }
  const prices = new Map<string, PricedModel>();
  for (const row of priceRows) {
    prices.set(row.model, {
      inputPrice: row.inputPrice,
      outputPrice: row.outputPrice,
      cachedInputPrice: row.cachedInputPrice,
      cacheWritePrice: row.cacheWritePrice,
      cacheWrite1hPrice: row.cacheWrite1hPrice,
      unit: row.priceUnit as PriceUnit,
      unitPrice: row.unitPrice,
      imagePrices: row.imagePrices,
      defaultMaxTokens: row.defaultMaxTokens,
      ownedBy: row.ownedBy,
      fallbacks: row.fallbackModels && row.fallbackModels.length > 0 ? row.fallbackModels : null,
      contextWindow: row.contextWindow,
      cacheHitPrice: row.cacheHitPrice,
    });
  }
  return { channelsByModel, prices, loadedAt: Date.now() };
}
