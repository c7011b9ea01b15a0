import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { modelPrices, requestLogs } from "@tollgate/db";
import { type PriceUnit, usdToMicros } from "@tollgate/shared";
import { and, desc, eq } from "drizzle-orm";
import OpenAI, { toFile } from "openai";
import { type FakeMediaUpstream, startFakeMediaUpstream } from "./helpers/fake-openai-media-upstream";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import { type FreshDatabase, freshDatabase } from "./helpers/fresh-database";
import { type GatewayUnderTest, seeder, startGateway, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let database: FreshDatabase;
let media: FakeMediaUpstream;
let cohere: FakeMediaUpstream;
let chatUpstream: FakeOpenAIUpstream;
let gateway: GatewayUnderTest;
let gatewayUrl: string;
let seed: ReturnType<typeof seeder>;
let userId: number;
let tokenId: number;
let client: OpenAI;

const UPSTREAM_KEY = "sk-media-upstream";

/** A PCM WAV file: 16 kHz, mono, 16 bit (32,000 bytes a second) of `seconds` of silence. */
function wavFile(seconds: number): Uint8Array {
  const dataBytes = Math.round(seconds * 32_000);
  const bytes = new Uint8Array(44 + dataBytes);
  const view = new DataView(bytes.buffer);
  const ascii = (offset: number, text: string) => [...text].forEach((char, index) => view.setUint8(offset + index, char.charCodeAt(0)));
  ascii(0, "RIFF");
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, 16_000, true);
  view.setUint32(28, 32_000, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, "data");
  view.setUint32(40, dataBytes, true);
  for (let index = 44; index < bytes.length; index++) bytes[index] = index % 7;
  return bytes;
}

async function sha256(bytes: Uint8Array): Promise<string> {
  return Buffer.from(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)).toString("hex");
}

interface PriceInput {
  model: string;
  unit?: PriceUnit;
  inputPrice?: string;
  outputPrice?: string;
  unitPrice?: string;
  imagePrices?: Record<string, string>;
  defaultMaxTokens?: number;
}

/**
 * Writes a whole price row (USD amounts in micro-USD, as packages/admin's setPrice stores them; the test
 * app cannot import that package), and waits until the gateway bills by it.
 */
async function price(input: PriceInput) {
  const micros = (usd: string | undefined) => (usd === undefined ? null : usdToMicros(usd));
  const row = {
    priceUnit: input.unit ?? "token",
    inputPrice: micros(input.inputPrice) ?? 0,
    outputPrice: micros(input.outputPrice) ?? 0,
    unitPrice: micros(input.unitPrice),
    imagePrices: input.imagePrices ? Object.fromEntries(Object.entries(input.imagePrices).map(([key, usd]) => [key, usdToMicros(usd)])) : null,
    defaultMaxTokens: input.defaultMaxTokens ?? null,
  };
  await database.handle.db
    .insert(modelPrices)
    .values({ model: input.model, ...row })
    .onConflictDoUpdate({ target: modelPrices.model, set: { ...row, updatedAt: new Date() } });
  const saved = { model: input.model, unit: row.priceUnit, unitPrice: row.unitPrice, defaultMaxTokens: row.defaultMaxTokens };
  await waitFor(async () => {
    const listed = (await gateway.services.catalog.get()).prices.get(saved.model);
    return listed && listed.unit === saved.unit && listed.unitPrice === saved.unitPrice && listed.defaultMaxTokens === saved.defaultMaxTokens;
  }, `the price of ${saved.model} in the catalog`);
}

/** The newest request-log row of a token, once written. */
async function lastLog(token = tokenId, endpoint?: string) {
  await gateway.services.usage.flush();
  const filter = endpoint ? and(eq(requestLogs.tokenId, token), eq(requestLogs.endpoint, endpoint)) : eq(requestLogs.tokenId, token);
  const [row] = await database.handle.db.select().from(requestLogs).where(filter).orderBy(desc(requestLogs.id)).limit(1);
  return row!;
}

beforeAll(async () => {
  database = await freshDatabase();
  media = await startFakeMediaUpstream({ requireApiKey: UPSTREAM_KEY });
  cohere = await startFakeMediaUpstream({ rerankShape: "cohere" });
  chatUpstream = await startFakeOpenAIUpstream();
  gateway = await startGateway(database.handle);
  gatewayUrl = await gateway.listen();
  seed = seeder(database.handle, gateway.secretBox, [gateway]);
  userId = (await seed.user()).id;
  await seed.channel({
    name: "media",
    baseUrl: media.url,
    apiKey: UPSTREAM_KEY,
    models: ["dall-e-3", "gpt-image-1", "whisper-1", "tts-1", "omni-moderation-latest", "jina-reranker-v2", "whisper-fallback"],
    modelMapping: { "whisper-fallback": "whisper-1" },
  });
  await seed.channel({ name: "cohere", baseUrl: cohere.url, models: ["rerank-english-v3.0"] });
  await seed.channel({
    name: "azure",
    type: "azure-openai",
    baseUrl: media.origin,
    apiKey: UPSTREAM_KEY,
    models: ["azure-whisper"],
    modelMapping: { "azure-whisper": "whisper-deployment" },
  });
  await seed.channel({ name: "claude", type: "anthropic", baseUrl: "http://127.0.0.1:9", models: ["claude-sonnet-4-5"] });
  await seed.channel({ name: "chat", baseUrl: chatUpstream.url, models: ["long-writer"] });
  await price({ model: "dall-e-3", unit: "image", unitPrice: "0.04", imagePrices: { "1024x1024/hd": "0.08", "1792x1024": "0.12" } });
  await price({ model: "gpt-image-1", inputPrice: "5", outputPrice: "40" });
  await price({ model: "whisper-1", unit: "audio_second", unitPrice: "0.0001" });
  await price({ model: "whisper-fallback", unit: "audio_second", unitPrice: "0.0001" });
  await price({ model: "azure-whisper", unit: "audio_second", unitPrice: "0.0001" });
  await price({ model: "tts-1", unit: "character", unitPrice: "15" });
  await price({ model: "omni-moderation-latest", unit: "request", unitPrice: "0.001" });
  await price({ model: "jina-reranker-v2", unit: "request", unitPrice: "0.002" });
  await price({ model: "rerank-english-v3.0", unit: "request", unitPrice: "0.002" });
  const token = await seed.token({ userId });
  tokenId = token.row.id;
  client = new OpenAI({ apiKey: token.secret, baseURL: gatewayUrl, maxRetries: 0 });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await gateway?.stop();
  await media?.close();
  await cohere?.close();
  await chatUpstream?.close();
  await database?.drop();
}, SETUP_TIMEOUT_MS);

describe("images through the openai client", () => {
  test("images.generate is relayed with the channel's key and billed per image by size and quality", async () => {
    const { data: images, response } = await client.images
      .generate({ model: "dall-e-3", prompt: "a lighthouse at dusk", n: 2, size: "1024x1024", quality: "hd" })
      .withResponse();
    expect(images.data).toHaveLength(2);
    expect(images.data?.[0]?.url).toStartWith("https://images.example/");
    const sent = media.requests.at(-1)!;
    expect(sent).toMatchObject({ operation: "images/generations", path: "/v1/images/generations" });
    expect(sent.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(sent.fields).toMatchObject({ model: "dall-e-3", prompt: "a lighthouse at dusk", n: 2, quality: "hd" });
    expect(response.headers.get("x-tollgate-cost-usd")).toBe("0.160000");
    expect(await lastLog()).toMatchObject({ endpoint: "images.generations", model: "dall-e-3", status: 200, billedUnit: "image", billedQuantity: 2, cost: 160_000 });
  });

  test("a size without its own price costs the model's default per image", async () => {
    await client.images.generate({ model: "dall-e-3", prompt: "a map", size: "1024x1792" });
    expect(await lastLog()).toMatchObject({ billedUnit: "image", billedQuantity: 1, cost: 40_000 });
  });

  test("images.edit uploads the image as a form, the upstream receives the very bytes, and a size priced alone applies to any quality", async () => {
    const image = new Uint8Array(20_000).map((_, index) => (index * 13) % 256);
    const edited = await client.images.edit({
      model: "dall-e-3",
      image: await toFile(image, "photo.png", { type: "image/png" }),
      prompt: "add a red hat",
      size: "1792x1024",
    });
    expect(edited.data).toHaveLength(1);
    const sent = media.requests.at(-1)!;
    expect(sent.operation).toBe("images/edits");
    expect(sent.contentType).toStartWith("multipart/form-data; boundary=");
    expect(sent.fields).toMatchObject({ model: "dall-e-3", prompt: "add a red hat", size: "1792x1024" });
    expect(sent.files).toEqual([{ field: "image", filename: "photo.png", type: "image/png", size: 20_000, sha256: await sha256(image) }]);
    expect(await lastLog()).toMatchObject({ endpoint: "images.edits", billedUnit: "image", billedQuantity: 1, cost: 120_000 });
  });

  test("a model priced per token is billed by the tokens the upstream reports (gpt-image-1)", async () => {
    await client.images.generate({ model: "gpt-image-1", prompt: "a cat" });
    // 100 input tokens at $5/1M and 272 output tokens at $40/1M: 500 + 10,880 micro-USD.
    expect(await lastLog()).toMatchObject({ billedUnit: "token", billedQuantity: null, promptTokens: 100, completionTokens: 272, cost: 11_380 });
  });

  test("a streamed image generation is refused with a 400 naming 'stream', not answered as a whole", async () => {
    const response = await fetch(`${gatewayUrl}/images/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${client.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "dall-e-3", prompt: "x", stream: true }),
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({ code: "invalid_value", param: "stream" });
  });

  test("a body without a prompt is refused before any upstream call", async () => {
    const before = media.requests.length;
    const error = await client.images.generate({ model: "dall-e-3" } as never).catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toMatchObject({ code: "missing_required_parameter", param: "prompt" });
    expect(media.requests.length).toBe(before);
  });
});

describe("audio through the openai client", () => {
  test("a transcription is uploaded whole and billed by the duration verbose_json reports", async () => {
    const audio = wavFile(2);
    const transcript = await client.audio.transcriptions.create({
      model: "whisper-1",
      file: await toFile(audio, "speech.wav", { type: "audio/wav" }),
      response_format: "verbose_json",
    });
    expect(transcript.text).toBe("Hello from the transcribed audio.");
    expect(transcript.duration).toBe(8.47);
    const sent = media.requests.at(-1)!;
    // Bun's form parser (the fake's) reads audio/wav as audio/x-wav.
    expect(sent.files).toEqual([{ field: "file", filename: "speech.wav", type: expect.stringMatching(/^audio\/(x-)?wav$/), size: audio.byteLength, sha256: await sha256(audio) }]);
    expect(sent.fields).toMatchObject({ model: "whisper-1", response_format: "verbose_json" });
    // 8.47 s at $0.0001 a second.
    expect(await lastLog()).toMatchObject({ endpoint: "audio.transcriptions", billedUnit: "audio_second", billedQuantity: 8.47, cost: 847, usageEstimated: false });
  });

  test("a text transcript comes back as text, billed by the WAV header's duration", async () => {
    const text = await client.audio.transcriptions.create({
      model: "whisper-1",
      file: await toFile(wavFile(2.5), "speech.wav", { type: "audio/wav" }),
      response_format: "text",
    });
    expect(String(text).trim()).toBe("Hello from the transcribed audio.");
    expect(await lastLog()).toMatchObject({ billedUnit: "audio_second", billedQuantity: 2.5, cost: 250, usageEstimated: false });
  });

  test("a format with no duration in its header is billed by its size's upper bound, marked estimated", async () => {
    const notWav = new Uint8Array(40_000).fill(0xff);
    await client.audio.transcriptions.create({ model: "whisper-1", file: await toFile(notWav, "speech.mp3", { type: "audio/mpeg" }), response_format: "srt" });
    // 40,000 bytes at the 4,000 bytes a second floor: 10 s.
    expect(await lastLog()).toMatchObject({ billedUnit: "audio_second", billedQuantity: 10, cost: 1_000, usageEstimated: true });
  });

  test("a translation (json) is billed by the seconds in its usage", async () => {
    const translation = await client.audio.translations.create({ model: "whisper-1", file: await toFile(wavFile(1), "speech.wav") });
    expect(translation.text).toBe("Hello from the translated audio.");
    expect(await lastLog()).toMatchObject({ endpoint: "audio.translations", billedUnit: "audio_second", billedQuantity: 9, cost: 900 });
  });

  test("an upload is replayed whole on the next channel when the first fails, with the model renamed", async () => {
    media.enqueue({ kind: "error", status: 503 });
    const fallbackChannel = await seed.channel({ name: "media-2", baseUrl: media.url, apiKey: UPSTREAM_KEY, models: ["whisper-fallback"], priority: -1 });
    const audio = wavFile(1);
    const before = media.requests.length;
    await client.audio.transcriptions.create({ model: "whisper-fallback", file: await toFile(audio, "a.wav", { type: "audio/wav" }) });
    const attempts = media.requests.slice(before);
    expect(attempts).toHaveLength(2);
    for (const attempt of attempts) expect(attempt.files[0]).toMatchObject({ size: audio.byteLength, sha256: await sha256(audio) });
    expect(attempts.map((attempt) => attempt.fields.model).sort()).toEqual(["whisper-1", "whisper-fallback"]);
    const log = await lastLog();
    expect(log.channelsTried).toHaveLength(2);
    expect(log.channelsTried).toContain(fallbackChannel.id);
  });

  test("an Azure channel gets the deployment's path and its api-key header", async () => {
    await client.audio.transcriptions.create({ model: "azure-whisper", file: await toFile(wavFile(1), "a.wav", { type: "audio/wav" }) });
    const sent = media.requests.at(-1)!;
    expect(sent.path).toBe("/openai/deployments/whisper-deployment/audio/transcriptions");
    expect(sent.query).toStartWith("?api-version=");
    expect(sent.headers["api-key"]).toBe(UPSTREAM_KEY);
    expect(sent.headers.authorization).toBeUndefined();
  });

  test("speech comes back as the upstream's audio bytes, billed per 1M characters of input", async () => {
    const input = "Hello from Tollgate, spoken aloud.";
    const speech = await client.audio.speech.create({ model: "tts-1", voice: "alloy", input });
    expect(speech.headers.get("content-type")).toBe("audio/mpeg");
    const bytes = new Uint8Array(await speech.arrayBuffer());
    expect(bytes.byteLength).toBe(media.speechBytes.byteLength);
    expect(await sha256(bytes)).toBe(await sha256(media.speechBytes));
    expect(media.requests.at(-1)!.fields).toMatchObject({ model: "tts-1", voice: "alloy", input });
    // 34 characters at $15 per 1M characters: 510 micro-USD.
    const log = await waitFor(async () => {
      const row = await lastLog(tokenId, "audio.speech");
      return row?.billedUnit === "character" ? row : null;
    }, "the speech call's log row");
    expect(log).toMatchObject({ status: 200, billedQuantity: input.length, cost: Math.ceil((input.length * 15_000_000) / 1_000_000) });
  });

  test("a transcription without a file is refused with a 400 naming it", async () => {
    const form = new FormData();
    form.append("model", "whisper-1");
    const response = await fetch(`${gatewayUrl}/audio/transcriptions`, { method: "POST", headers: { authorization: `Bearer ${client.apiKey}` }, body: form });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({ code: "missing_required_parameter", param: "file" });
  });

  test("a JSON body sent to an upload endpoint is refused with a 400", async () => {
    const response = await fetch(`${gatewayUrl}/audio/transcriptions`, {
      method: "POST",
      headers: { authorization: `Bearer ${client.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "whisper-1" }),
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe("invalid_content_type");
  });
});

describe("moderations and rerank", () => {
  test("moderations.create without a model goes to omni-moderation-latest, billed per request", async () => {
    const moderation = await client.moderations.create({ input: "I want to bake a cake." });
    expect(moderation.results[0]?.flagged).toBe(false);
    expect(media.requests.at(-1)!.fields).toMatchObject({ model: "omni-moderation-latest", input: "I want to bake a cake." });
    expect(await lastLog()).toMatchObject({ endpoint: "moderations", model: "omni-moderation-latest", billedUnit: "request", billedQuantity: 1, cost: 1_000 });
  });

  test("a rerank in Jina's shape is relayed to /v1/rerank and billed per request", async () => {
    const response = await fetch(`${gatewayUrl}/rerank`, {
      method: "POST",
      headers: { authorization: `Bearer ${client.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "jina-reranker-v2", query: "tollgate", documents: ["a river", "the tollgate gateway", { text: "a bridge" }], top_n: 2 }),
    });
    expect(response.status).toBe(200);
    const ranked = await response.json();
    expect(ranked.results).toHaveLength(2);
    expect(ranked.results[0]).toMatchObject({ index: 1, document: { text: "the tollgate gateway" } });
    expect(media.requests.at(-1)).toMatchObject({ operation: "rerank", path: "/v1/rerank" });
    expect(response.headers.get("x-tollgate-cost-usd")).toBe("0.002000");
    expect(await lastLog()).toMatchObject({ endpoint: "rerank", billedUnit: "request", cost: 2_000, usageEstimated: false });
  });

  test("a rerank answered in Cohere's shape is relayed as it came", async () => {
    const response = await fetch(`${gatewayUrl}/rerank`, {
      method: "POST",
      headers: { authorization: `Bearer ${client.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "rerank-english-v3.0", query: "gate", documents: ["gate", "river"] }),
    });
    const ranked = await response.json();
    expect(ranked.meta.billed_units.search_units).toBe(1);
    expect(ranked.results[0]).toEqual({ index: 0, relevance_score: 0.9 });
    expect(await lastLog()).toMatchObject({ endpoint: "rerank", billedUnit: "request", cost: 2_000 });
  });

  test("a rerank without documents is refused with a 400", async () => {
    const response = await fetch(`${gatewayUrl}/rerank`, {
      method: "POST",
      headers: { authorization: `Bearer ${client.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "jina-reranker-v2", query: "q", documents: [] }),
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({ code: "invalid_value", param: "documents" });
  });

  test("a model whose channels cannot serve the endpoint (Anthropic) is refused with 400 unsupported_endpoint", async () => {
    const error = await client.images.generate({ model: "claude-sonnet-4-5", prompt: "x" }).catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toMatchObject({ code: "unsupported_endpoint", param: "model" });
  });
});

describe("token rules on the media endpoints", () => {
  test("a token lacking the model is refused with 403 model_not_allowed", async () => {
    const restricted = await seed.token({ userId, allowedModels: ["tts-1"] });
    const restrictedClient = new OpenAI({ apiKey: restricted.secret, baseURL: gatewayUrl, maxRetries: 0 });
    const before = media.requests.length;
    const error = await restrictedClient.audio.transcriptions.create({ model: "whisper-1", file: await toFile(wavFile(1), "a.wav") }).catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(error.error.code).toBe("model_not_allowed");
    expect(media.requests.length).toBe(before);
  });

  test("a token whose quota cannot cover the unit's worst case is refused with 429 insufficient_quota", async () => {
    // $0.07 left: one standard image ($0.04) fits, one hd image ($0.08) does not, nor two standard ones.
    const capped = await seed.token({ userId, quotaLimit: 70_000 });
    const cappedClient = new OpenAI({ apiKey: capped.secret, baseURL: gatewayUrl, maxRetries: 0 });
    const refused = await cappedClient.images.generate({ model: "dall-e-3", prompt: "x", quality: "hd" }).catch((caught) => caught);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect(refused.error.code).toBe("insufficient_quota");
    const two = await cappedClient.images.generate({ model: "dall-e-3", prompt: "x", n: 2 }).catch((caught) => caught);
    expect(two.error.code).toBe("insufficient_quota");
    const one = await cappedClient.images.generate({ model: "dall-e-3", prompt: "x" });
    expect(one.data).toHaveLength(1);
    expect(await lastLog(capped.row.id)).toMatchObject({ status: 200, cost: 40_000 });
    // A 20 s WAV at $0.0001 a second ($0.002) fits what is left; speech of 3,000 characters at $15/1M ($0.045) does not.
    await cappedClient.audio.transcriptions.create({ model: "whisper-1", file: await toFile(wavFile(20), "a.wav"), response_format: "text" });
    const speech = await cappedClient.audio.speech.create({ model: "tts-1", voice: "alloy", input: "x".repeat(3_000) }).catch((caught) => caught);
    expect(speech.error.code).toBe("insufficient_quota");
  });

  test("a token used from an address outside its IP list is refused with 403", async () => {
    const fenced = await seed.token({ userId, allowedIps: ["10.1.2.3"] });
    const fencedClient = new OpenAI({ apiKey: fenced.secret, baseURL: gatewayUrl, maxRetries: 0 });
    const error = await fencedClient.moderations.create({ input: "hi" }).catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(error.error.code).toBe("ip_not_allowed");
  });
});

describe("a per-model default max_tokens", () => {
  test("decides admission at a quota's edge for a request that names no max_tokens", async () => {
    // $1 per 1M input and $100 per 1M output tokens; a $0.05 quota. The global default (4,096 tokens, $0.41)
    // cannot be held; the model's own default of 200 ($0.02) can.
    await price({ model: "long-writer", inputPrice: "1", outputPrice: "100" });
    const edge = await seed.token({ userId, quotaLimit: 50_000 });
    const edgeClient = new OpenAI({ apiKey: edge.secret, baseURL: gatewayUrl, maxRetries: 0 });
    const messages = [{ role: "user" as const, content: "Write." }];
    const refused = await edgeClient.chat.completions.create({ model: "long-writer", messages }).catch((caught) => caught);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect(refused.error.code).toBe("insufficient_quota");
    await price({ model: "long-writer", inputPrice: "1", outputPrice: "100", defaultMaxTokens: 200 });
    chatUpstream.enqueue({ kind: "ok", content: "Done.", promptTokens: 9, completionTokens: 2 });
    const admitted = await edgeClient.chat.completions.create({ model: "long-writer", messages });
    expect(admitted.choices[0]?.message.content).toBe("Done.");
    // And the other way: a model default larger than what is left refuses the same request.
    await price({ model: "long-writer", inputPrice: "1", outputPrice: "100", defaultMaxTokens: 1_000 });
    const again = await edgeClient.chat.completions.create({ model: "long-writer", messages }).catch((caught) => caught);
    expect(again.error.code).toBe("insufficient_quota");
  });
});
