import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { modelPrices } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type CliHarness, createCliHarness, DATABASE_SETUP_TIMEOUT_MS } from "./cli-test-harness";

let harness: CliHarness;

beforeAll(async () => {
  harness = await createCliHarness();
}, DATABASE_SETUP_TIMEOUT_MS);

afterAll(() => harness.close());

async function priceRow(model: string) {
  const [row] = await harness.context.db.select().from(modelPrices).where(eq(modelPrices.model, model));
  return row;
}

describe("model price", () => {
  test("stores USD per 1M tokens as micro-USD per 1M tokens", async () => {
    const saved = await harness.runJson("model", "price", "--model", "gpt-4o", "--input", "2.5", "--output", "10", "--cached", "1.25");
    expect(saved).toEqual({
      model: "gpt-4o",
      priced: true,
      unit: "token",
      inputUsdPer1M: "2.500000",
      outputUsdPer1M: "10.000000",
      cachedUsdPer1M: "1.250000",
      cacheWriteUsdPer1M: null,
      cacheWrite1hUsdPer1M: null,
      cacheHitUsd: "0.000000",
      unitUsd: null,
      imageUsd: null,
      defaultMaxTokens: null,
      fallbacks: null,
      contextWindow: null,
    });
    expect(await priceRow("gpt-4o")).toMatchObject({ inputPrice: 2_500_000, outputPrice: 10_000_000, cachedInputPrice: 1_250_000 });
  });

  test("a second price replaces the first, and no --cached means the input price", async () => {
    const before = await priceRow("gpt-4o");
    const result = await harness.run("model", "price", "--model", "gpt-4o", "--input", "0.15", "--output", "0.6");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("cache read same as input, cache write same as input, cache write 1h same as input");
    const after = await priceRow("gpt-4o");
    expect(after).toMatchObject({ inputPrice: 150_000, outputPrice: 600_000, cachedInputPrice: null });
    expect(after?.updatedAt.getTime()).toBeGreaterThan(before?.updatedAt.getTime() ?? Number.POSITIVE_INFINITY);
    expect(await harness.context.db.select().from(modelPrices)).toHaveLength(1);
  });

  test("prices cache reads and both cache-write lifetimes, each stored as micro-USD per 1M tokens", async () => {
    const saved = await harness.runJson(
      "model", "price", "--model", "claude-sonnet", "--input", "3", "--output", "15", "--cache-read", "0.3", "--cache-write", "3.75", "--cache-write-1h", "6",
    );
    expect(saved).toMatchObject({ cachedUsdPer1M: "0.300000", cacheWriteUsdPer1M: "3.750000", cacheWrite1hUsdPer1M: "6.000000" });
    expect(await priceRow("claude-sonnet")).toMatchObject({ cachedInputPrice: 300_000, cacheWritePrice: 3_750_000, cacheWrite1hPrice: 6_000_000 });
    const human = await harness.run("model", "price", "--model", "claude-sonnet", "--input", "3", "--output", "15", "--cache-write", "3.75");
    expect(human.stdout).toBe("price of claude-sonnet per 1M tokens: input $3.000000, output $15.000000, cache read same as input, cache write $3.750000, cache write 1h same as input\n");
    expect(await priceRow("claude-sonnet")).toMatchObject({ cachedInputPrice: null, cacheWritePrice: 3_750_000, cacheWrite1hPrice: null });
    await harness.expectRejected(["model", "price", "--model", "m", "--input", "1", "--output", "2", "--cache-write", "-1"], "--cache-write must be a non-negative amount in USD");
    await harness.expectRejected(["model", "price", "--model", "m", "--input", "1", "--output", "2", "--cache-write-1h", "x"], "--cache-write-1h must be");
    await harness.expectRejected(["model", "price", "--model", "m", "--input", "1", "--output", "2", "--cache-read", "x"], "--cache-read must be");
    await harness.expectRejected(["model", "price", "--model", "m", "--input", "1", "--output", "2", "--cache-read", "1", "--cached", "1"], "--cached and --cache-read");
    await harness.context.db.delete(modelPrices).where(eq(modelPrices.model, "claude-sonnet"));
  });

  test("refuses bad prices without writing anything", async () => {
    await harness.expectRejected(["model", "price", "--model", "m", "--output", "1"], "--input is required");
    await harness.expectRejected(["model", "price", "--model", "m", "--input", "1"], "--output is required");
    await harness.expectRejected(["model", "price", "--input", "1", "--output", "1"], "--model is required");
    await harness.expectRejected(["model", "price", "--model", "m", "--input", "1", "--output", "-2"], "--output must be a non-negative amount in USD");
    await harness.expectRejected(["model", "price", "--model", "m", "--input", "1", "--output", "2", "--cached", "cheap"], "--cached must be");
    await harness.expectRejected(["model", "price", "--model", "gpt-4o", "--input", "9", "--output", "NaN"], "--output");
  });

  test("prices a model per image by size and quality, with a default for other sizes", async () => {
    const saved = await harness.runJson(
      "model", "price", "--model", "dall-e-3", "--unit", "image", "--image-price", "1024x1024=0.04,1024x1024/hd=0.08", "--unit-price", "0.12",
    );
    expect(saved).toMatchObject({ unit: "image", unitUsd: "0.120000", imageUsd: { "1024x1024": "0.040000", "1024x1024/hd": "0.080000" } });
    expect(await priceRow("dall-e-3")).toMatchObject({
      priceUnit: "image",
      unitPrice: 120_000,
      imagePrices: { "1024x1024": 40_000, "1024x1024/hd": 80_000 },
      inputPrice: 0,
      outputPrice: 0,
    });
    const human = await harness.run("model", "price", "--model", "whisper-1", "--unit", "audio_second", "--unit-price", "0.0001");
    expect(human.stdout).toBe("price of whisper-1 per audio second: $0.000100\n");
  });

  test("sets a per-model default max_tokens with the price, and refuses units without their price", async () => {
    const saved = await harness.runJson("model", "price", "--model", "o1", "--input", "15", "--output", "60", "--default-max-tokens", "32768");
    expect(saved).toMatchObject({ unit: "token", defaultMaxTokens: 32768 });
    expect(await priceRow("o1")).toMatchObject({ defaultMaxTokens: 32768 });
    await harness.expectRejected(["model", "price", "--model", "tts-1", "--unit", "character"], "--unit-price is required");
    await harness.expectRejected(["model", "price", "--model", "x", "--unit", "minute", "--unit-price", "1"], "--unit must be one of");
    await harness.expectRejected(["model", "price", "--model", "x", "--unit", "image", "--image-price", "big"], "--image-price must be");
    await harness.expectRejected(["model", "price", "--model", "x", "--input", "1", "--output", "1", "--default-max-tokens", "0"], "--default-max-tokens must be a positive integer");
    await harness.expectRejected(["model", "price", "--model", "x", "--input", "1", "--output", "1", "--image-price", "1024x1024=1"], "--image-price is only for the image unit");
  });
});

describe("model fallback and model update", () => {
  test("sets a priced model's fallbacks in order and its context window, and clears them", async () => {
    await harness.runJson("model", "price", "--model", "fb-a", "--input", "1", "--output", "2");
    await harness.runJson("model", "price", "--model", "fb-b", "--input", "1", "--output", "2");
    await harness.runJson("model", "price", "--model", "fb-c", "--input", "1", "--output", "2");
    const saved = await harness.runJson("model", "fallback", "--model", "fb-a", "--to", "fb-c,fb-b");
    expect(saved).toMatchObject({ model: "fb-a", fallbacks: ["fb-c", "fb-b"], contextWindow: null });
    const human = await harness.run("model", "update", "--model", "fb-a", "--context-window", "128000");
    expect(human.stdout).toBe("fb-a: falls back to fb-c, fb-b; context window 128000 tokens\n");
    expect(await priceRow("fb-a")).toMatchObject({ fallbackModels: ["fb-c", "fb-b"], contextWindow: 128_000 });
    // A new price keeps them: they are the model's settings, not part of its price.
    await harness.runJson("model", "price", "--model", "fb-a", "--input", "3", "--output", "4");
    expect(await priceRow("fb-a")).toMatchObject({ fallbackModels: ["fb-c", "fb-b"], contextWindow: 128_000 });
    await harness.runJson("model", "fallback", "--model", "fb-a", "--clear");
    await harness.runJson("model", "update", "--model", "fb-a", "--context-window", "none");
    expect(await priceRow("fb-a")).toMatchObject({ fallbackModels: null, contextWindow: null });
  });

  test("refuses the model itself, a model named twice, unknown models, an unpriced model and a bad window", async () => {
    await harness.expectRejected(["model", "fallback", "--model", "fb-a", "--to", "fb-b,fb-a"], "--to must not name the model itself");
    await harness.expectRejected(["model", "fallback", "--model", "fb-a", "--to", "fb-b,fb-b"], 'names "fb-b" twice');
    await harness.expectRejected(["model", "fallback", "--model", "fb-a", "--to", "fb-b,nowhere"], 'unknown model "nowhere"');
    await harness.expectRejected(["model", "fallback", "--model", "unpriced-model", "--to", "fb-b"], "no price is set");
    await harness.expectRejected(["model", "fallback", "--model", "fb-a"], "--to");
    await harness.expectRejected(["model", "update", "--model", "fb-a", "--context-window", "0"], "--context-window must be a positive integer");
    expect(await priceRow("fb-a")).toMatchObject({ fallbackModels: null });
  });
});

describe("model list", () => {
  test("lists served models with their prices and channels, and priced models no channel serves", async () => {
    await harness.runJson("channel", "add", "--name", "a", "--base-url", "https://a.example", "--key", "sk-aaaaaaaaaaaa", "--models", "gpt-4o,llama");
    const second = await harness.runJson("channel", "add", "--name", "b", "--base-url", "https://b.example", "--key", "sk-bbbbbbbbbbbb", "--models", "gpt-4o");
    await harness.run("channel", "disable", String(second.id));
    await harness.runJson("model", "price", "--model", "future-model", "--input", "1", "--output", "2");

    // The prices set by the tests above (other units) are left out here.
    const listed = (await harness.runJson<Array<Record<string, unknown> & { model: string }>>("model", "list")).filter((row) =>
      ["future-model", "gpt-4o", "llama"].includes(row.model),
    );
    expect(listed).toEqual([
      {
        model: "future-model",
        priced: true,
        unit: "token",
        inputUsdPer1M: "1.000000",
        outputUsdPer1M: "2.000000",
        cachedUsdPer1M: null,
        cacheWriteUsdPer1M: null,
        cacheWrite1hUsdPer1M: null,
        cacheHitUsd: "0.000000",
        unitUsd: null,
        imageUsd: null,
        defaultMaxTokens: null,
        fallbacks: null,
        contextWindow: null,
        channels: [],
      },
      {
        model: "gpt-4o",
        priced: true,
        unit: "token",
        inputUsdPer1M: "0.150000",
        outputUsdPer1M: "0.600000",
        cachedUsdPer1M: null,
        cacheWriteUsdPer1M: null,
        cacheWrite1hUsdPer1M: null,
        cacheHitUsd: "0.000000",
        unitUsd: null,
        imageUsd: null,
        defaultMaxTokens: null,
        fallbacks: null,
        contextWindow: null,
        channels: [
          { id: expect.any(Number), name: "a", status: "enabled" },
          { id: second.id, name: "b", status: "disabled" },
        ],
      },
      {
        model: "llama",
        priced: false,
        unit: null,
        inputUsdPer1M: null,
        outputUsdPer1M: null,
        cachedUsdPer1M: null,
        cacheWriteUsdPer1M: null,
        cacheWrite1hUsdPer1M: null,
        cacheHitUsd: null,
        unitUsd: null,
        imageUsd: null,
        defaultMaxTokens: null,
        fallbacks: null,
        contextWindow: null,
        channels: [{ id: expect.any(Number), name: "a", status: "enabled" }],
      },
    ]);

    const human = await harness.run("model", "list");
    const lines = human.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^MODEL\s+INPUT\/1M\s+OUTPUT\/1M\s+CACHE READ\/1M\s+CACHE WRITE\/1M\s+CACHE WRITE 1H\/1M\s+OTHER UNIT\s+CHANNELS$/);
    expect(lines.find((line) => line.startsWith("llama"))).toContain("unpriced");
    expect(lines.find((line) => line.startsWith("gpt-4o"))).toContain(`b#${second.id} (disabled)`);
    expect(lines.find((line) => line.startsWith("future-model"))).toContain("(no channel)");
  });
});
