import { channels, type Database, modelPrices } from "@tollgate/db";
import type { PriceUnit } from "@tollgate/shared";
import { asc, eq } from "drizzle-orm";
import { type Actor, isAdministrator } from "../actor";
import { AdminError } from "../admin-error";
import type { SetPriceInput } from "./price-schemas";

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
    if (!isAdministrator(actor) && !row.groups.includes(actor.group)) continue;
    for (const model of row.models) names.add(model);
  }
  return [...names].sort();
}

export async function getPrice(db: Database, model: string): Promise<{ model: string; price: ModelListing["price"] }> {
  const [price] = await db.select(priceColumns).from(modelPrices).where(eq(modelPrices.model, model)).limit(1);
  return { model, price: price ? asListedPrice(price) : null };
}

/** Sets a model's whole price (see setPriceSchema). */
export async function setPrice(db: Database, input: SetPriceInput): Promise<NonNullable<ModelListing["price"]>> {
  const { model, unit, ...rest } = input;
  const price = { ...rest, priceUnit: unit };
  const [saved] = await db
    .insert(modelPrices)
    .values({ model, ...price })
    .onConflictDoUpdate({ target: modelPrices.model, set: { ...price, updatedAt: new Date() } })
    .returning(priceColumns);
  if (!saved) throw new Error("the saved price was not returned");
  return asListedPrice(saved);
}

/** Removes a price: the model then costs nothing. */
export async function deletePrice(db: Database, model: string): Promise<{ model: string }> {
  const [deleted] = await db.delete(modelPrices).where(eq(modelPrices.model, model)).returning({ model: modelPrices.model });
  if (!deleted) throw new AdminError("not_found", `No price is set for ${JSON.stringify(model)}`);
  return deleted;
}
