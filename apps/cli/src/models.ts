import { channels, modelPrices } from "@tollgate/db";
import { asc } from "drizzle-orm";
import type { CommandContext, CommandHandler } from "./command-context";
import { formatJson, formatTable, formatUsd, usdForJson } from "./format-output";
import { parseCommandArguments, requireFlag } from "./parse-arguments";
import { parseName, parseUsd } from "./parse-values";

type PriceRow = typeof modelPrices.$inferSelect;

/** Prices are shown and read as USD per 1M tokens; stored as micro-USD per 1M tokens (the same x 1e6). */
function priceJson(price: PriceRow | undefined) {
  return {
    priced: price !== undefined,
    inputUsdPer1M: price ? usdForJson(price.inputPrice) : null,
    outputUsdPer1M: price ? usdForJson(price.outputPrice) : null,
    /** Null: cached prompt tokens cost the input price. */
    cachedUsdPer1M: price?.cachedInputPrice == null ? null : usdForJson(price.cachedInputPrice),
  };
}

async function setModelPrice(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, {
    command: "model price",
    flags: { model: "string", input: "string", output: "string", cached: "string", json: "boolean" },
  });
  const model = parseName(requireFlag(flags.model, "model"), "model");
  const inputPrice = parseUsd(requireFlag(flags.input, "input"), "input");
  const outputPrice = parseUsd(requireFlag(flags.output, "output"), "output");
  // Omitting --cached on an update resets it: the command always states the model's whole price.
  const cachedInputPrice = flags.cached === undefined ? null : parseUsd(flags.cached, "cached");
  const [saved] = await db
    .insert(modelPrices)
    .values({ model, inputPrice, outputPrice, cachedInputPrice })
    .onConflictDoUpdate({
      target: modelPrices.model,
      set: { inputPrice, outputPrice, cachedInputPrice, updatedAt: new Date() },
    })
    .returning();
  if (!saved) throw new Error("the saved price was not returned");
  if (flags.json) return formatJson({ model: saved.model, ...priceJson(saved) });
  const cached = saved.cachedInputPrice === null ? "same as input" : formatUsd(saved.cachedInputPrice);
  return `price of ${saved.model} per 1M tokens: input ${formatUsd(saved.inputPrice)}, output ${formatUsd(saved.outputPrice)}, cached input ${cached}\n`;
}

async function listModels(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, { command: "model list", flags: { json: "boolean" } });
  const channelRows = await db
    .select({ id: channels.id, name: channels.name, status: channels.status, models: channels.models })
    .from(channels)
    .orderBy(asc(channels.id));
  const priceRows = await db.select().from(modelPrices);
  const prices = new Map(priceRows.map((price) => [price.model, price]));
  const servedBy = new Map<string, { id: number; name: string; status: string }[]>();
  for (const channel of channelRows) {
    for (const model of channel.models) {
      const list = servedBy.get(model) ?? [];
      list.push({ id: channel.id, name: channel.name, status: channel.status });
      servedBy.set(model, list);
    }
  }
  // Priced models no channel serves are listed too, so that a price set ahead of a channel is visible.
  const names = [...new Set([...servedBy.keys(), ...prices.keys()])].sort();
  const models = names.map((model) => ({ model, ...priceJson(prices.get(model)), channels: servedBy.get(model) ?? [] }));
  if (flags.json) return formatJson(models);
  return formatTable(
    ["MODEL", "INPUT/1M", "OUTPUT/1M", "CACHED/1M", "CHANNELS"],
    names.map((model) => {
      const price = prices.get(model);
      const served = servedBy.get(model) ?? [];
      return [
        model,
        price ? formatUsd(price.inputPrice) : "unpriced",
        price ? formatUsd(price.outputPrice) : "unpriced",
        price ? (price.cachedInputPrice === null ? "=input" : formatUsd(price.cachedInputPrice)) : "unpriced",
        served.length === 0
          ? "(no channel)"
          : served
              .map((channel) => `${channel.name}#${channel.id}${channel.status === "enabled" ? "" : ` (${channel.status})`}`)
              .join(", "),
      ];
    }),
  );
}

export const modelCommands: Record<string, CommandHandler> = {
  price: setModelPrice,
  list: listModels,
};
