import { channels, modelPrices } from "@tollgate/db";
import { asc, eq } from "drizzle-orm";
import { z } from "zod";
import { notFound } from "../errors";
import { adminProcedure, authedProcedure, isAdmin, router } from "../trpc";
import { nameSchema, usdSchema } from "../validation";

/** Prices travel as integer micro-USD per 1M tokens (= USD per 1M tokens x 1e6). */
const priceColumns = {
  model: modelPrices.model,
  inputPrice: modelPrices.inputPrice,
  outputPrice: modelPrices.outputPrice,
  cachedInputPrice: modelPrices.cachedInputPrice,
  updatedAt: modelPrices.updatedAt,
};

export const modelsRouter = router({
  /** Every model a channel serves, plus priced models no channel serves yet, with prices and channels. */
  list: adminProcedure.query(async ({ ctx }) => {
    const channelRows = await ctx.db
      .select({ id: channels.id, name: channels.name, status: channels.status, models: channels.models })
      .from(channels)
      .orderBy(asc(channels.id));
    const prices = new Map((await ctx.db.select(priceColumns).from(modelPrices)).map((price) => [price.model, price]));
    const servedBy = new Map<string, { id: number; name: string; status: string }[]>();
    for (const channel of channelRows) {
      for (const model of channel.models) {
        const list = servedBy.get(model) ?? [];
        list.push({ id: channel.id, name: channel.name, status: channel.status });
        servedBy.set(model, list);
      }
    }
    const names = [...new Set([...servedBy.keys(), ...prices.keys()])].sort();
    return names.map((model) => ({ model, price: prices.get(model) ?? null, channels: servedBy.get(model) ?? [] }));
  }),

  /** Model ids the signed-in user's tokens can reach (enabled channels of their group; all for admins). */
  available: authedProcedure.query(async ({ ctx }) => {
    const rows = await ctx.db
      .select({ models: channels.models, groups: channels.groups })
      .from(channels)
      .where(eq(channels.status, "enabled"));
    const names = new Set<string>();
    for (const row of rows) {
      if (!isAdmin(ctx.user) && !row.groups.includes(ctx.user.group)) continue;
      for (const model of row.models) names.add(model);
    }
    return [...names].sort();
  }),

  byId: adminProcedure.input(z.object({ model: nameSchema })).query(async ({ ctx, input }) => {
    const [price] = await ctx.db.select(priceColumns).from(modelPrices).where(eq(modelPrices.model, input.model)).limit(1);
    return { model: input.model, price: price ?? null };
  }),

  /** Sets a model's whole price (USD per 1M tokens); cached null means "same as input". */
  update: adminProcedure
    .input(
      z.object({
        model: nameSchema,
        inputPrice: usdSchema,
        outputPrice: usdSchema,
        cachedInputPrice: usdSchema.nullable(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { model, ...price } = input;
      const [saved] = await ctx.db
        .insert(modelPrices)
        .values({ model, ...price })
        .onConflictDoUpdate({ target: modelPrices.model, set: { ...price, updatedAt: new Date() } })
        .returning(priceColumns);
      return saved!;
    }),

  /** Removes a price: the model then costs nothing. */
  delete: adminProcedure.input(z.object({ model: nameSchema })).mutation(async ({ ctx, input }) => {
    const [deleted] = await ctx.db.delete(modelPrices).where(eq(modelPrices.model, input.model)).returning({ model: modelPrices.model });
    if (!deleted) throw notFound("Price");
    return deleted;
  }),
});
