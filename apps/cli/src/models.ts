import { listModels, type ModelListing, setPrice, setPriceSchema } from "@tollgate/admin";
import type { CommandContext, CommandHandler } from "./command-context";
import { parseInput } from "./flag-values";
import { formatJson, formatTable, formatUsd, usdForJson } from "./format-output";
import { parseCommandArguments } from "./parse-arguments";

/** Prices are shown and read as USD per 1M tokens; stored as micro-USD per 1M tokens (the same x 1e6). */
function priceJson(price: ModelListing["price"]) {
  return {
    priced: price !== null,
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
  // Omitting --cached on an update resets it: the command always states the model's whole price.
  const input = parseInput(
    setPriceSchema,
    { model: flags.model, inputPrice: flags.input, outputPrice: flags.output, cachedInputPrice: flags.cached },
    { inputPrice: "--input", outputPrice: "--output", cachedInputPrice: "--cached" },
  );
  const saved = await setPrice(db, input);
  if (flags.json) return formatJson({ model: saved.model, ...priceJson(saved) });
  const cached = saved.cachedInputPrice === null ? "same as input" : formatUsd(saved.cachedInputPrice);
  return `price of ${saved.model} per 1M tokens: input ${formatUsd(saved.inputPrice)}, output ${formatUsd(saved.outputPrice)}, cached input ${cached}\n`;
}

async function listModelsCommand(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, { command: "model list", flags: { json: "boolean" } });
  const models = await listModels(db);
  if (flags.json) return formatJson(models.map(({ model, price, channels }) => ({ model, ...priceJson(price), channels })));
  return formatTable(
    ["MODEL", "INPUT/1M", "OUTPUT/1M", "CACHED/1M", "CHANNELS"],
    models.map(({ model, price, channels }) => [
      model,
      price ? formatUsd(price.inputPrice) : "unpriced",
      price ? formatUsd(price.outputPrice) : "unpriced",
      price ? (price.cachedInputPrice === null ? "=input" : formatUsd(price.cachedInputPrice)) : "unpriced",
      channels.length === 0
        ? "(no channel)"
        : channels.map((channel) => `${channel.name}#${channel.id}${channel.status === "enabled" ? "" : ` (${channel.status})`}`).join(", "),
    ]),
  );
}

export const modelCommands: Record<string, CommandHandler> = {
  price: setModelPrice,
  list: listModelsCommand,
};
