import { channels, type Database, modelPrices } from "@tollgate/db";
import type { PriceUnit } from "@tollgate/shared";
import { asc, eq } from "drizzle-orm";
import { type Actor, isAdministrator } from "../actor";
import { AdminError } from "../admin-error";
import { recordAudit } from "../audit/record-audit";
import type { SetPriceInput, UpdateModelRoutingInput } from "./price-schemas";

type PriceRow = Omit<NonNullable<ModelListing["price"]>, "unit"> & { unit: string };

/** The unit column is text with a CHECK constraint (migration 0008): read back as the union it holds. */
function asListedPrice(row: PriceRow): NonNullable<ModelListing["price"]> {
  return { ...row, unit: row.unit as PriceUnit };
}

/** Prices are integer micro-USD per 1M tokens (= USD per 1M tokens x 1e6), or per unit (see price-schemas.ts). */
const priceColumns = {
  model: modelPrices.model,
  unit: modelPrices.priceUnit,
  inputPrice: modelPrices.inputPrice,
  outputPrice: modelPrices.outputPrice,
  /** Null: cached prompt tokens cost the input price. */
  cachedInputPrice: modelPrices.cachedInputPrice,
  /** Null: prompt tokens written to the cache for 5 minutes cost the input price. */
  cacheWritePrice: modelPrices.cacheWritePrice,
  /** Null: prompt tokens written to the cache for 1 hour cost the input price. */
  cacheWrite1hPrice: modelPrices.cacheWrite1hPrice,
  /** Micro-USD per image, audio second, 1M characters or request; null for tokens. */
  unitPrice: modelPrices.unitPrice,
  /** Micro-USD per image by "size/quality" or "size". */
  imagePrices: modelPrices.imagePrices,
  /** Null: the global reservation default. */
  defaultMaxTokens: modelPrices.defaultMaxTokens,
  /** Models tried in order when this one cannot serve a call; null: none. */
  fallbackModels: modelPrices.fallbackModels,
  /** Context window in tokens; null: unknown. */
  contextWindow: modelPrices.contextWindow,
  /** Micro-USD per answer served from the response cache. */
  cacheHitPrice: modelPrices.cacheHitPrice,
  updatedAt: modelPrices.updatedAt,
};

export interface ModelListing {
  model: string;
  price: {
    model: string;
    unit: PriceUnit;
    inputPrice: number;
    outputPrice: number;
    cachedInputPrice: number | null;
    cacheWritePrice: number | null;
    cacheWrite1hPrice: number | null;
    unitPrice: number | null;
    imagePrices: Record<string, number> | null;
    defaultMaxTokens: number | null;
    fallbackModels: string[] | null;
    contextWindow: number | null;
    cacheHitPrice: number;
    updatedAt: Date;
  } | null;
  /** The channels that list the model, by id, whatever their status. */
  channels: { id: number; name: string; status: string }[];
}

/**
 * Every model a channel serves, plus priced models no channel serves yet (so that a price set ahead of a
 * channel is visible), by name, with its price and channels.
 */
export async function listModels(db: Database): Promise<ModelListing[]> {
  const channelRows = await db
    .select({ id: channels.id, name: channels.name, status: channels.status, models: channels.models })
    .from(channels)
    .orderBy(asc(channels.id));
  const prices = new Map((await db.select(priceColumns).from(modelPrices)).map((price) => [price.model, asListedPrice(price)]));
  const servedBy = new Map<string, ModelListing["channels"]>();
  for (const channel of channelRows) {
    for (const model of channel.models) {
      const list = servedBy.get(model) ?? [];
      list.push({ id: channel.id, name: channel.name, status: channel.status });
      servedBy.set(model, list);
    }
  }
  const names = [...new Set([...servedBy.keys(), ...prices.keys()])].sort();
  return names.map((model) => ({ model, price: prices.get(model) ?? null, channels: servedBy.get(model) ?? [] }));
}

/** Model ids the actor's tokens can reach: those of enabled channels of their group (all of them for an administrator). */
export async function availableModels(db: Database, actor: Actor): Promise<string[]> {
  const rows = await db.select({ models: channels.models, groups: channels.groups }).from(channels).where(eq(channels.status, "enabled"));
  const names = new Set<string>();
  for (const row of rows) {
    if (!isAdministrator(actor) && (actor.group === null || !row.groups.includes(actor.group))) continue;
    for (const model of row.models) names.add(model);
  }
  return [...names].sort();
}

export async function getPrice(db: Database, model: string): Promise<{ model: string; price: ModelListing["price"] }> {
  const [price] = await db.select(priceColumns).from(modelPrices).where(eq(modelPrices.model, model)).limit(1);
  return { model, price: price ? asListedPrice(price) : null };
}

/** Sets a model's whole price (see setPriceSchema). */
export async function setPrice(db: Database, actor: Actor, input: SetPriceInput): Promise<NonNullable<ModelListing["price"]>> {
  const { model, unit, ...rest } = input;
  const price = { ...rest, priceUnit: unit };
  return db.transaction(async (transaction) => {
    const [before] = await transaction.select(priceColumns).from(modelPrices).where(eq(modelPrices.model, model)).for("update").limit(1);
    const [saved] = await transaction
      .insert(modelPrices)
      .values({ model, ...price })
      .onConflictDoUpdate({ target: modelPrices.model, set: { ...price, updatedAt: new Date() } })
      .returning(priceColumns);
    if (!saved) throw new Error("the saved price was not returned");
    await recordAudit(transaction, actor, { action: "price.set", objectType: "model_price", objectId: model, before: before ?? null, after: saved });
    return asListedPrice(saved);
  });
}

/** Removes a price: the model then costs nothing. */
export async function deletePrice(db: Database, actor: Actor, model: string): Promise<{ model: string }> {
  return db.transaction(async (transaction) => {
    const [deleted] = await transaction.delete(modelPrices).where(eq(modelPrices.model, model)).returning(priceColumns);
    if (!deleted) throw new AdminError("not_found", `No price is set for ${JSON.stringify(model)}`);
    await recordAudit(transaction, actor, { action: "price.delete", objectType: "model_price", objectId: model, before: deleted, after: null });
    return { model: deleted.model };
  });
}

/**
 * Sets a model's fallback list and context window (each only when given; see updateModelRoutingSchema).
 * They live beside its price, so the model must be priced first (a price of zero for a free model); every
 * fallback must be a model a channel serves or a price names.
 */
export async function updateModelRouting(db: Database, actor: Actor, input: UpdateModelRoutingInput): Promise<NonNullable<ModelListing["price"]>> {
  const changes: Partial<typeof modelPrices.$inferInsert> = {};
  if (input.contextWindow !== undefined) changes.contextWindow = input.contextWindow;
  if (input.fallbacks !== undefined) {
    const fallbacks = input.fallbacks ?? [];
    if (fallbacks.length > 0) {
      const known = new Set((await listModels(db)).map((listing) => listing.model));
      const unknown = fallbacks.filter((model) => !known.has(model));
      if (unknown.length > 0) {
        throw new AdminError("invalid_input", `Unknown model${unknown.length > 1 ? "s" : ""} ${unknown.map((model) => JSON.stringify(model)).join(", ")}: no channel serves it and no price names it`, {
          field: "fallbacks",
        });
      }
    }
    changes.fallbackModels = fallbacks.length > 0 ? fallbacks : null;
  }
  return db.transaction(async (transaction) => {
    const [before] = await transaction.select(priceColumns).from(modelPrices).where(eq(modelPrices.model, input.model)).for("update").limit(1);
    const [saved] = await transaction
      .update(modelPrices)
      .set({ ...changes, updatedAt: new Date() })
      .where(eq(modelPrices.model, input.model))
      .returning(priceColumns);
    if (!saved) {
      throw new AdminError("not_found", `No price is set for ${JSON.stringify(input.model)}: set one first (a model's fallbacks and context window are kept with its price)`);
    }
    await recordAudit(transaction, actor, { action: "model.update_routing", objectType: "model_price", objectId: input.model, before, after: saved });
    return asListedPrice(saved);
  });
}
