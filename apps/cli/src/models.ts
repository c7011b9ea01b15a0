import { cliOperator, listModels, type ModelListing, setPrice, setPriceSchema, updateModelRouting, updateModelRoutingSchema } from "@tollgate/admin";
import type { CommandContext, CommandHandler } from "./command-context";
import { CommandError } from "./command-error";
import { integerFromText, listFromText, pairsFromText, parseInput } from "./flag-values";
import { formatJson, formatUsd, usdForJson } from "./format-output";
import { listCommand } from "./list-command";
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
    /** Null: prompt tokens written to the cache (5 minutes, 1 hour) cost the input price. */
    cacheWriteUsdPer1M: price?.cacheWritePrice == null ? null : usdForJson(price.cacheWritePrice),
    cacheWrite1hUsdPer1M: price?.cacheWrite1hPrice == null ? null : usdForJson(price.cacheWrite1hPrice),
    unitUsd: price?.unitPrice == null ? null : usdForJson(price.unitPrice),
    imageUsd: price?.imagePrices ? Object.fromEntries(Object.entries(price.imagePrices).map(([key, micros]) => [key, usdForJson(micros)])) : null,
    defaultMaxTokens: price?.defaultMaxTokens ?? null,
    fallbacks: price?.fallbackModels ?? null,
    contextWindow: price?.contextWindow ?? null,
    /** Billed per answer served from the response cache. */
    cacheHitUsd: price ? usdForJson(price.cacheHitPrice) : null,
  };
}

/** The model's fallbacks and context window, in words. */
function describeRouting(saved: NonNullable<ModelListing["price"]>): string {
  const fallbacks = saved.fallbackModels ? `falls back to ${saved.fallbackModels.join(", ")}` : "no fallback models";
  const window = saved.contextWindow === null ? "context window not set" : `context window ${saved.contextWindow} tokens`;
  return `${saved.model}: ${fallbacks}; ${window}\n`;
}

/** `model fallback --model A --to B,C` sets the list in order; `--clear` removes it. */
async function setModelFallbacks(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, { command: "model fallback", flags: { model: "string", to: "string", clear: "boolean", json: "boolean" } });
  if ((flags.to === undefined) === !flags.clear) throw new CommandError("model fallback takes --to MODEL[,MODEL...] or --clear");
  const input = parseInput(updateModelRoutingSchema, { model: flags.model, fallbacks: flags.clear ? null : listFromText(flags.to, "to") }, { fallbacks: "--to" });
  const saved = await updateModelRouting(db, cliOperator, input);
  return flags.json ? formatJson({ model: saved.model, ...priceJson(saved) }) : describeRouting(saved);
}

/** `model update --model A --context-window N|none`: the model's settings other than its price. */
async function updateModelCommand(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, { command: "model update", flags: { model: "string", "context-window": "string", json: "boolean" } });
  if (flags["context-window"] === undefined) throw new CommandError("model update takes --context-window TOKENS|none");
  const contextWindow = flags["context-window"].trim() === "none" ? null : integerFromText(flags["context-window"]);
  const input = parseInput(updateModelRoutingSchema, { model: flags.model, contextWindow }, { contextWindow: "--context-window" });
  const saved = await updateModelRouting(db, cliOperator, input);
  return flags.json ? formatJson({ model: saved.model, ...priceJson(saved) }) : describeRouting(saved);
}

/** A cache price in words: its amount, or "same as input" when unset. */
function cachePrice(micros: number | null, unset = "same as input"): string {
  return micros === null ? unset : formatUsd(micros);
}

/** The response cache's price per hit, when it has one. */
function cacheHitWords(price: NonNullable<ModelListing["price"]>): string {
  return price.cacheHitPrice > 0 ? `; cached answer ${formatUsd(price.cacheHitPrice)}` : "";
}

/** A price in one line: the unit's price (and per-size table), or the token prices. */
function describePrice(price: NonNullable<ModelListing["price"]>): string {
  if (price.unit === "token") {
    return (
      `per 1M tokens: input ${formatUsd(price.inputPrice)}, output ${formatUsd(price.outputPrice)}, cache read ${cachePrice(price.cachedInputPrice)}, ` +
      `cache write ${cachePrice(price.cacheWritePrice)}, cache write 1h ${cachePrice(price.cacheWrite1hPrice)}${cacheHitWords(price)}`
    );
  }
  const sizes = price.imagePrices ? Object.entries(price.imagePrices).map(([key, micros]) => `${key} ${formatUsd(micros)}`) : [];
  const base = price.unitPrice === null ? [] : [`${sizes.length > 0 ? "other sizes " : ""}${formatUsd(price.unitPrice)}`];
  return `${unitWords[price.unit]}: ${[...sizes, ...base].join(", ")}${cacheHitWords(price)}`;
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
      "cache-read": "string",
      "cache-write": "string",
      "cache-write-1h": "string",
      "unit-price": "string",
      "image-price": "string",
      "default-max-tokens": "string",
      "cache-hit": "string",
      json: "boolean",
    },
  });
  // --cached is the older name of --cache-read.
  if (flags.cached !== undefined && flags["cache-read"] !== undefined) throw new CommandError("--cached and --cache-read are the same price: give one");
  // Omitted flags are reset on an update: the command always states the model's whole price.
  const input = parseInput(
    setPriceSchema,
    {
      model: flags.model,
      unit: flags.unit as never,
      inputPrice: flags.input,
      outputPrice: flags.output,
      cachedInputPrice: flags["cache-read"] ?? flags.cached,
      cacheWritePrice: flags["cache-write"],
      cacheWrite1hPrice: flags["cache-write-1h"],
      unitPrice: flags["unit-price"],
      // `1024x1024=0.04,1024x1024/hd=0.08`: sizes (or size/quality) to USD amounts, checked by the schema.
      imagePrices: pairsFromText(flags["image-price"], "image-price", "SIZE[/QUALITY]=USD", "prices"),
      defaultMaxTokens: integerFromText(flags["default-max-tokens"]),
      cacheHitPrice: flags["cache-hit"],
    },
    {
      inputPrice: "--input",
      outputPrice: "--output",
      cachedInputPrice: flags.cached === undefined ? "--cache-read" : "--cached",
      cacheWritePrice: "--cache-write",
      cacheWrite1hPrice: "--cache-write-1h",
      unitPrice: "--unit-price",
      imagePrices: "--image-price",
      defaultMaxTokens: "--default-max-tokens",
      cacheHitPrice: "--cache-hit",
    },
  );
  const saved = await setPrice(db, cliOperator, input);
  if (flags.json) return formatJson({ model: saved.model, ...priceJson(saved) });
  const bound = saved.defaultMaxTokens === null ? "" : `; ${saved.defaultMaxTokens} completion tokens held when max_tokens is absent`;
  return `price of ${saved.model} ${describePrice(saved)}${bound}\n`;
}

const listModelsCommand = listCommand("model list", {
  load: ({ db }) => listModels(db),
  json: ({ model, price, channels }) => ({ model, ...priceJson(price), channels }),
  columns: [
    ["MODEL", ({ model }) => model],
    ["INPUT/1M", ({ price }) => (price ? formatUsd(price.inputPrice) : "unpriced")],
    ["OUTPUT/1M", ({ price }) => (price ? formatUsd(price.outputPrice) : "unpriced")],
    ["CACHE READ/1M", ({ price }) => (price ? cachePrice(price.cachedInputPrice, "=input") : "unpriced")],
    ["CACHE WRITE/1M", ({ price }) => (price ? cachePrice(price.cacheWritePrice, "=input") : "unpriced")],
    ["CACHE WRITE 1H/1M", ({ price }) => (price ? cachePrice(price.cacheWrite1hPrice, "=input") : "unpriced")],
    ["OTHER UNIT", ({ price }) => (price && price.unit !== "token" ? describePrice(price) : "")],
    [
      "CHANNELS",
      ({ channels }) =>
        channels.length === 0
          ? "(no channel)"
          : channels.map((channel) => `${channel.name}#${channel.id}${channel.status === "enabled" ? "" : ` (${channel.status})`}`).join(", "),
    ],
  ],
});

export const modelCommands: Record<string, CommandHandler> = {
  price: setModelPrice,
  fallback: setModelFallbacks,
  update: updateModelCommand,
  list: listModelsCommand,
};
