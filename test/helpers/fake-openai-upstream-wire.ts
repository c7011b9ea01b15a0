import { createHash, randomBytes, randomInt } from "node:crypto";
import chatCompletionChunksFixture from "../fixtures/openai/chat-completion-chunks.json";
import chatCompletionFixture from "../fixtures/openai/chat-completion.json";
import embeddingsFixture from "../fixtures/openai/embeddings.json";
import invalidJsonFixture from "../fixtures/openai/errors/400-invalid-json.json";
import invalidRequestFixture from "../fixtures/openai/errors/400-invalid-request.json";
import invalidApiKeyFixture from "../fixtures/openai/errors/401-invalid-api-key.json";
import invalidUrlFixture from "../fixtures/openai/errors/404-invalid-url.json";
import modelNotFoundFixture from "../fixtures/openai/errors/404-model-not-found.json";
import insufficientQuotaFixture from "../fixtures/openai/errors/429-insufficient-quota.json";
import rateLimitExceededFixture from "../fixtures/openai/errors/429-rate-limit-exceeded.json";
import serverErrorFixture from "../fixtures/openai/errors/500-server-error.json";
import modelsFixture from "../fixtures/openai/models.json";

/**
 * OpenAI response bodies for the fake upstream, built from the fixtures in test/fixtures/openai/ so that
 * field names, order and null-vs-absent choices stay those of OpenAI's wire format.
 */

export const fakeDefaults = {
  content: "Hello from the fake upstream! This is a streamed answer.",
  promptTokens: 12,
  cachedTokens: 0,
  embeddingDimensions: 8,
} as const;

/** Error bodies as OpenAI sends them; pass one as `body` of an "error" behaviour to pick a variant. */
export const openAIErrorFixtures = {
  invalidRequest: invalidRequestFixture,
  invalidJson: invalidJsonFixture,
  invalidApiKey: invalidApiKeyFixture,
  modelNotFound: modelNotFoundFixture,
  invalidUrl: invalidUrlFixture,
  rateLimitExceeded: rateLimitExceededFixture,
  insufficientQuota: insufficientQuotaFixture,
  serverError: serverErrorFixture,
} as const;

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** The body OpenAI sends for `status` when nothing more specific is known. */
export function defaultErrorBody(status: number): OpenAIErrorBody {
  const byStatus: Record<number, OpenAIErrorBody> = {
    400: invalidRequestFixture,
    401: invalidApiKeyFixture,
    404: modelNotFoundFixture,
    429: rateLimitExceededFixture,
    500: serverErrorFixture,
  };
  const known = byStatus[status];
  if (known) return structuredClone(known);
  return {
    error: {
      message: `The fake upstream answered with status ${status}.`,
      type: status >= 500 ? "server_error" : "invalid_request_error",
      param: null,
      code: null,
    },
  };
}

export function invalidUrlBody(method: string, path: string): OpenAIErrorBody {
  const body = structuredClone(invalidUrlFixture);
  body.error.message = `Invalid URL (${method} ${path})`;
  return body;
}

/**
 * Splits content into word-sized deltas, each carrying its leading whitespace as OpenAI tokens do
 * ("Hello", " from", " the"), so that joining the deltas gives back exactly the content.
 */
export function splitIntoDeltas(content: string): string[] {
  return content.match(/\s*\S+|\s+$/g) ?? [];
}

export interface UsageNumbers {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

export function buildUsage(numbers: UsageNumbers) {
  const usage = structuredClone(chatCompletionFixture.usage);
  usage.prompt_tokens = numbers.promptTokens;
  usage.completion_tokens = numbers.completionTokens;
  usage.total_tokens = numbers.promptTokens + numbers.completionTokens;
  usage.prompt_tokens_details.cached_tokens = numbers.cachedTokens;
  return usage;
}

export interface CompletionIdentity {
  id: string;
  created: number;
  model: string;
}

export function newCompletionIdentity(model: string): CompletionIdentity {
  return {
    id: `chatcmpl-${randomBytes(24).toString("base64url").replace(/[-_]/g, "x").slice(0, 29)}`,
    created: Math.floor(Date.now() / 1000),
    model,
  };
}

export function buildChatCompletion(identity: CompletionIdentity, content: string, usage: UsageNumbers | undefined) {
  const completion: Record<string, unknown> = structuredClone(chatCompletionFixture);
  completion.id = identity.id;
  completion.created = identity.created;
  completion.model = identity.model;
  const [choice] = completion.choices as (typeof chatCompletionFixture.choices)[number][];
  choice!.message.content = content;
  if (usage) completion.usage = buildUsage(usage);
  else delete completion.usage;
  return completion;
}

export interface ChunkOptions {
  /** stream_options.include_usage: adds `usage: null` to every chunk and a final usage-only chunk. */
  includeUsage: boolean;
  /** stream_options.include_obfuscation, true unless the client turns it off. */
  includeObfuscation: boolean;
}

type Chunk = Record<string, unknown> & { choices: Record<string, unknown>[] };

type FixtureDelta = { role?: string; content?: string };
const deltaOf = (chunk: (typeof chatCompletionChunksFixture)[number]) => chunk.choices[0]?.delta as FixtureDelta | undefined;

const chunkTemplates = {
  role: chatCompletionChunksFixture.find((chunk) => deltaOf(chunk)?.role),
  content: chatCompletionChunksFixture.find((chunk) => !deltaOf(chunk)?.role && deltaOf(chunk)?.content),
  finish: chatCompletionChunksFixture.find((chunk) => chunk.choices[0]?.finish_reason),
  usage: chatCompletionChunksFixture.find((chunk) => chunk.choices.length === 0),
};

function chunkFrom(template: object | undefined, identity: CompletionIdentity, options: ChunkOptions): Chunk {
  if (!template) throw new Error("test/fixtures/openai/chat-completion-chunks.json lacks a chunk kind the fake needs");
  const chunk = structuredClone(template) as Chunk;
  chunk.id = identity.id;
  chunk.created = identity.created;
  chunk.model = identity.model;
  if (!options.includeUsage) delete chunk.usage;
  if (options.includeObfuscation) chunk.obfuscation = randomBytes(12).toString("base64url").slice(0, randomInt(1, 13));
  else delete chunk.obfuscation;
  return chunk;
}

export function buildRoleChunk(identity: CompletionIdentity, options: ChunkOptions): Chunk {
  return chunkFrom(chunkTemplates.role, identity, options);
}

export function buildContentChunk(identity: CompletionIdentity, options: ChunkOptions, delta: string): Chunk {
  const chunk = chunkFrom(chunkTemplates.content, identity, options);
  (chunk.choices[0]!.delta as { content: string }).content = delta;
  return chunk;
}

export function buildFinishChunk(identity: CompletionIdentity, options: ChunkOptions): Chunk {
  return chunkFrom(chunkTemplates.finish, identity, options);
}

export function buildUsageChunk(identity: CompletionIdentity, options: ChunkOptions, usage: UsageNumbers): Chunk {
  const chunk = chunkFrom(chunkTemplates.usage, identity, { ...options, includeUsage: true });
  chunk.usage = buildUsage(usage);
  return chunk;
}

const encoder = new TextEncoder();

/** One server-sent event as OpenAI frames it: a single `data:` line and a blank line. */
export function sseFrame(payload: unknown): Uint8Array {
  return encoder.encode(`data: ${JSON.stringify(payload)}\n\n`);
}

export const sseDoneFrame: Uint8Array = encoder.encode("data: [DONE]\n\n");

/** Unit-length vector derived from a hash of the input, rounded to float32 so both encodings agree exactly. */
export function deterministicEmbedding(input: unknown, dimensions: number): number[] {
  const values: number[] = [];
  for (let block = 0; values.length < dimensions; block += 1) {
    const digest = createHash("sha256").update(`${block}:${JSON.stringify(input)}`).digest();
    for (let offset = 0; offset + 2 <= digest.length && values.length < dimensions; offset += 2) {
      values.push(digest.readUInt16LE(offset) / 32767.5 - 1);
    }
  }
  const norm = Math.hypot(...values) || 1;
  return values.map((value) => Math.fround(value / norm));
}

/** OpenAI's `encoding_format: "base64"`: the little-endian float32 bytes of the vector, base64-encoded. */
export function encodeEmbeddingBase64(values: number[]): string {
  const view = new DataView(new ArrayBuffer(values.length * 4));
  values.forEach((value, index) => view.setFloat32(index * 4, value, true));
  return Buffer.from(view.buffer).toString("base64");
}

/** The separate inputs of an embeddings request: a string, strings, a token array or token arrays. */
export function embeddingInputs(input: unknown): unknown[] {
  if (!Array.isArray(input)) return [input];
  if (input.length > 0 && input.every((item) => typeof item === "number")) return [input];
  return input;
}

function countInputTokens(input: unknown): number {
  if (Array.isArray(input)) return input.length;
  return splitIntoDeltas(String(input)).length;
}

export interface EmbeddingsRequestShape {
  model: string;
  input: unknown;
  encodingFormat: "float" | "base64";
  dimensions: number;
  promptTokens?: number;
  omitUsage: boolean;
}

export function buildEmbeddingsResponse(request: EmbeddingsRequestShape) {
  const response: Record<string, unknown> = structuredClone(embeddingsFixture);
  const inputs = embeddingInputs(request.input);
  response.data = inputs.map((input, index) => {
    const vector = deterministicEmbedding(input, request.dimensions);
    return {
      ...structuredClone(embeddingsFixture.data[0]),
      index,
      embedding: request.encodingFormat === "base64" ? encodeEmbeddingBase64(vector) : vector,
    };
  });
  response.model = request.model;
  if (request.omitUsage) {
    delete response.usage;
  } else {
    const promptTokens = request.promptTokens ?? inputs.reduce<number>((sum, input) => sum + countInputTokens(input), 0);
    response.usage = { prompt_tokens: promptTokens, total_tokens: promptTokens };
  }
  return response;
}

export function buildModelsList() {
  return structuredClone(modelsFixture);
}
