import { channels, type Database, modelPrices } from "@tollgate/db";
import { asc, eq } from "drizzle-orm";
import { type Actor, isAdministrator } from "../actor";
import { AdminError } from "../admin-error";
import type { SetPriceInput } from "./price-schemas";

/** Prices are integer micro-USD per 1M tokens (= USD per 1M tokens x 1e6). */
const priceColumns = {
  model: modelPrices.model,
  inputPrice: modelPrices.inputPrice,
  outputPrice: modelPrices.outputPrice,
  /** Null: cached prompt tokens cost the input price. */
  cachedInputPrice: modelPrices.cachedInputPrice,
  updatedAt: modelPrices.updatedAt,
};

export interface ModelListing {
  model: string;
  price: { model: string; inputPrice: number; outputPrice: number; cachedInputPrice: number | null; updatedAt: Date } | null;
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
  const prices = new Map((await db.select(priceColumns).from(modelPrices)).map((price) => [price.model, price]));
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
  return { model, price: price ?? null };
}

/** Sets a model's whole price (see setPriceSchema). */
export async function setPrice(db: Database, input: SetPriceInput): Promise<NonNullable<ModelListing["price"]>> {
  const { model, ...price } = input;
  const [saved] = await db
    .insert(modelPrices)
    .values({ model, ...price })
    .onConflictDoUpdate({ target: modelPrices.model, set: { ...price, updatedAt: new Date() } })
    .returning(priceColumns);
  if (!saved) throw new Error("the saved price was not returned");
  return saved;
}

/** Removes a price: the model then costs nothing. */
export async function deletePrice(db: Database, model: string): Promise<{ model: string }> {
  const [deleted] = await db.delete(modelPrices).where(eq(modelPrices.model, model)).returning({ model: modelPrices.model });
  if (!deleted) throw new AdminError("not_found", `No price is set for ${JSON.stringify(model)}`);
  return deleted;
}
