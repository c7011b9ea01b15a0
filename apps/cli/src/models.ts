import { listModels, type ModelListing, setPrice, setPriceSchema } from "@tollgate/admin";
import type { CommandContext, CommandHandler } from "./command-context";
import { integerFromText, pairsFromText, parseInput } from "./flag-values";
import { formatJson, formatTable, formatUsd, usdForJson } from "./format-output";
import { parseCommandArguments } from "./parse-arguments";

/** What one unit costs, in words: "per image", "per audio second", ... */
const unitWords: Record<string, string> = {
  image: "per image",
  audio_second: "per audio second",
  character: "per 1M characters",
  request: "per request",
};

/**
 * Prices are shown and read as USD per 1M tokens (or per unit); stored as micro-USD (the same x 1e6).
 */
function priceJson(price: ModelListing["price"]) {
  return {
    priced: price !== null,
    unit: price?.unit ?? null,
    inputUsdPer1M: price ? usdForJson(price.inputPrice) : null,
    outputUsdPer1M: price ? usdForJson(price.outputPrice) : null,
    /** Null: cached prompt tokens cost the input price. */
    cachedUsdPer1M: price?.cachedInputPrice == null ? null : usdForJson(price.cachedInputPrice),
    unitUsd: price?.unitPrice == null ? null : usdForJson(price.unitPrice),
    imageUsd: price?.imagePrices ? Object.fromEntries(Object.entries(price.imagePrices).map(([key, micros]) => [key, usdForJson(micros)])) : null,
    defaultMaxTokens: price?.defaultMaxTokens ?? null,
  };
}

/** A price in one line: the unit's price (and per-size table), or the three token prices. */
function describePrice(price: NonNullable<ModelListing["price"]>): string {
  if (price.unit === "token") {
    const cached = price.cachedInputPrice === null ? "same as input" : formatUsd(price.cachedInputPrice);
    return `per 1M tokens: input ${formatUsd(price.inputPrice)}, output ${formatUsd(price.outputPrice)}, cached input ${cached}`;
  }
  const sizes = price.imagePrices ? Object.entries(price.imagePrices).map(([key, micros]) => `${key} ${formatUsd(micros)}`) : [];
  const base = price.unitPrice === null ? [] : [`${sizes.length > 0 ? "other sizes " : ""}${formatUsd(price.unitPrice)}`];
  return `${unitWords[price.unit]}: ${[...sizes, ...base].join(", ")}`;
}

async function setModelPrice(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, {
    command: "model price",
    flags: {
      model: "string",
      unit: "string",
      input: "string",
      output: "string",
      cached: "string",
      "unit-price": "string",
      "image-price": "string",
      "default-max-tokens": "string",
      json: "boolean",
    },
  });
  // Omitted flags are reset on an update: the command always states the model's whole price.
  const input = parseInput(
    setPriceSchema,
    {
      model: flags.model,
      unit: flags.unit as never,
      inputPrice: flags.input,
      outputPrice: flags.output,
      cachedInputPrice: flags.cached,
      unitPrice: flags["unit-price"],
      // `1024x1024=0.04,1024x1024/hd=0.08`: sizes (or size/quality) to USD amounts, checked by the schema.
      imagePrices: pairsFromText(flags["image-price"], "image-price", "SIZE[/QUALITY]=USD", "prices"),
      defaultMaxTokens: integerFromText(flags["default-max-tokens"]),
    },
    {
      inputPrice: "--input",
      outputPrice: "--output",
      cachedInputPrice: "--cached",
      unitPrice: "--unit-price",
      imagePrices: "--image-price",
      defaultMaxTokens: "--default-max-tokens",
    },
  );
  const saved = await setPrice(db, input);
  if (flags.json) return formatJson({ model: saved.model, ...priceJson(saved) });
  const bound = saved.defaultMaxTokens === null ? "" : `; ${saved.defaultMaxTokens} completion tokens held when max_tokens is absent`;
  return `price of ${saved.model} ${describePrice(saved)}${bound}\n`;
}

async function listModelsCommand(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, { command: "model list", flags: { json: "boolean" } });
  const models = await listModels(db);
  if (flags.json) return formatJson(models.map(({ model, price, channels }) => ({ model, ...priceJson(price), channels })));
  return formatTable(
    ["MODEL", "INPUT/1M", "OUTPUT/1M", "CACHED/1M", "OTHER UNIT", "CHANNELS"],
    models.map(({ model, price, channels }) => [
      model,
      price ? formatUsd(price.inputPrice) : "unpriced",
      price ? formatUsd(price.outputPrice) : "unpriced",
      price ? (price.cachedInputPrice === null ? "=input" : formatUsd(price.cachedInputPrice)) : "unpriced",
      price && price.unit !== "token" ? describePrice(price) : "",
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
