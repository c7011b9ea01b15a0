import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { EventSourceMessage } from "eventsource-parser";
import { EventSourceParserStream } from "eventsource-parser/stream";
import { toyAdapter } from "../../../test/fixtures/toy-provider";
import { eventFrame, joinFrames } from "../../../test/helpers/bedrock-event-stream";
import { adapterFor, channelTypeIds, describeAdapter, registerProviderAdapter } from "./adapters";
import { type AdapterChannel, ChannelCredentialError, type ChatStreamPart, type ChatTranslationInput } from "./provider-adapter";

/**
 * The contract every registered adapter passes, run against each type the registry lists (the "add a
 * provider" recipe's toy provider included, registered for this file): what the gateway relies on without
 * knowing the provider. A provider's own behaviour is tested in its folder; this file checks the shape.
 */

const unregisterToy = registerProviderAdapter(toyAdapter);
afterAll(() => unregisterToy());

const fixtures = join(import.meta.dir, "../../../test/fixtures");
const SECRET = "sk-contract-secret-4242";

/**
 * A minimal valid non-streamed answer in each type's own wire format (recorded fixtures where there are
 * some). A new provider adds its sample here: the contract cannot check a translation without one.
 */
const sampleAnswers: Record<string, () => Promise<unknown>> = {
  "openai-compatible": () => Bun.file(join(fixtures, "openai/chat-completion.json")).json(),
  anthropic: () => Bun.file(join(fixtures, "anthropic/message-text.json")).json(),
  gemini: () => Bun.file(join(fixtures, "gemini/generate-content-text.json")).json(),
  "azure-openai": () => Bun.file(join(fixtures, "azure-openai/chat-completion.json")).json(),
  bedrock: () => Bun.file(join(fixtures, "bedrock/converse-text.json")).json(),
  // The contract's model is not a Claude model: Vertex answers it with Gemini's generateContent.
  vertex: () => Bun.file(join(fixtures, "vertex/generate-content-text.json")).json(),
  "toy-chat": async () => ({ text: "Hello", used: { in: 5, out: 1 } }),
};

/**
 * A minimal streamed answer in each type's own wire format: server-sent events, or the bytes the adapter's
 * stream decoder reads (recorded fixtures where there are some).
 */
const sampleStreams: Record<string, () => Promise<string | Uint8Array>> = {
  "openai-compatible": async () => {
    const chunks = (await Bun.file(join(fixtures, "openai/chat-completion-chunks.json")).json()) as unknown[];
    return `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("")}data: [DONE]\n\n`;
  },
  anthropic: () => Bun.file(join(fixtures, "anthropic/stream-text.sse")).text(),
  gemini: () => Bun.file(join(fixtures, "gemini/stream-text.sse")).text(),
  "azure-openai": () => Bun.file(join(fixtures, "azure-openai/stream-text.sse")).text(),
  bedrock: async () => {
    const events = (await Bun.file(join(fixtures, "bedrock/converse-stream-text.json")).json()) as [string, Record<string, unknown>][];
    return joinFrames(events.map(([type, payload]) => eventFrame(type, payload)));
  },
  vertex: () => Bun.file(join(fixtures, "vertex/stream-generate-content-text.sse")).text(),
  "toy-chat": async () => 'data: {"piece":"Hel"}\n\ndata: {"piece":"lo"}\n\ndata: {"used":{"in":5,"out":1}}\n\n',
};

/** The settings a type may need to build a request at all (Azure's API version, Vertex's project). */
const channel: AdapterChannel = { baseUrl: "https://upstream.example/base", apiKey: SECRET, config: { apiVersion: "2024-10-21", project: "contract-project" } };

function chatInput(stream: boolean): ChatTranslationInput {
  return {
    channel,
    upstreamModel: "upstream-model-1",
    body: { model: "public-model", messages: [{ role: "user", content: "Say hello." }], max_tokens: 16, ...(stream ? { stream: true } : {}) },
    stream,
  };
}

async function collect(readable: ReadableStream<ChatStreamPart>): Promise<ChatStreamPart[]> {
  const parts: ChatStreamPart[] = [];
  const reader = readable.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) parts.push(read.value);
  return parts;
}

const OPTIONAL_FUNCTIONS = [
  "buildCompletionsRequest",
  "speaksResponsesApi",
  "buildResponsesRequest",
  "messages",
  "countTokens",
  "buildEmbeddingsRequest",
  "translateEmbeddingsResponse",
  "listModels",
  "authorize",
  "createStreamDecoder",
  "credentialProblem",
  "geminiNative",
] as const;

describe("the provider adapter contract", () => {
  test("runs against every built-in type and the recipe's toy provider", () => {
    expect(channelTypeIds()).toEqual(expect.arrayContaining(["openai-compatible", "anthropic", "gemini", "azure-openai", "toy-chat"]));
  });

  for (const type of channelTypeIds()) {
    const adapter = adapterFor(type);

    describe(type, () => {
      test("is registered under its own type and describes itself with a label and a default base URL (or none)", () => {
        expect(adapter.type).toBe(type);
        const descriptor = describeAdapter(adapter);
        expect(descriptor.label).toBeString();
        expect(descriptor.label.length).toBeGreaterThan(0);
        if (descriptor.defaultBaseUrl === null) {
          expect(descriptor.cannotListModelsReason === null || typeof descriptor.cannotListModelsReason === "string").toBe(true);
        } else {
          expect(new URL(descriptor.defaultBaseUrl.replace("{region}", "us-east-1")).protocol).toMatch(/^https?:$/);
        }
        expect(adapter.relaysOpenAIFormat).toBeBoolean();
      });

      test("builds a chat request under the channel's base URL, with JSON body and the key in a header (once authorized, where the adapter authorizes), never in the URL or the body", async () => {
        for (const stream of [false, true]) {
          const built = adapter.buildChatRequest(chatInput(stream));
          const context = { fetch: () => Promise.reject(new Error("no token exchange in the contract")) };
          // A type whose authorization needs a token exchange (Vertex) cannot authorize here: its request is
          // checked as built, and must then not carry the key (the upstream gets a credential derived from it).
          let request: { url: string; headers: Record<string, string>; body?: string } = built;
          let authorized = adapter.authorize === undefined;
          if (adapter.authorize) {
            try {
              request = await adapter.authorize({ method: "POST", ...built }, channel, context);
              authorized = true;
            } catch (error) {
              if (!(error instanceof ChannelCredentialError)) throw error;
            }
          }
          expect(request.url.startsWith(`${channel.baseUrl}/`)).toBe(true);
          expect(new URL(request.url).protocol).toBe("https:");
          expect(request.url).not.toContain(SECRET);
          expect(request.body).not.toContain(SECRET);
          expect(JSON.parse(request.body ?? "")).toBeObject();
          expect(Object.values(request.headers).some((value) => value.includes(SECRET))).toBe(authorized);
          const contentType = Object.entries(request.headers).find(([name]) => name.toLowerCase() === "content-type")?.[1];
          expect(contentType).toContain("application/json");
        }
      });

      test("leaves the client's body as it was", () => {
        const input = chatInput(false);
        const before = structuredClone(input.body);
        adapter.buildChatRequest(input);
        expect(input.body).toEqual(before);
      });

      test("classifies 400, 401, 429, 500 and 503 answers for failover: a refused key is the channel's fault, 429 and 5xx are retryable", () => {
        for (const status of [400, 401, 429, 500, 503]) {
          for (const bodyText of ["{}", "not json", JSON.stringify({ error: { message: `bad key ${SECRET}` } })]) {
            const mapped = adapter.mapError(status, bodyText, channel);
            expect(mapped.status, `${status}`).toBeGreaterThanOrEqual(400);
            expect(mapped.status, `${status}`).toBeLessThanOrEqual(599);
            expect(mapped.message).toBeString();
            expect(mapped.message).not.toContain(SECRET);
            expect(mapped.type).toBeString();
            expect(mapped.code === null || typeof mapped.code === "string").toBe(true);
            expect(mapped.retryable).toBeBoolean();
            expect(mapped.channelFault).toBeBoolean();
            if (status === 401) expect(mapped.channelFault, `${status}`).toBe(true);
            if (status === 400) expect(mapped, `${status}`).toMatchObject({ retryable: false, channelFault: false });
            if (status === 429 || status >= 500) expect(mapped.retryable, `${status}`).toBe(true);
          }
        }
      });

      test("translates a minimal answer in its own wire format into an OpenAI chat.completion with usage, named after the public model when translated", async () => {
        const sample = sampleAnswers[type];
        if (!sample) throw new Error(`The adapter contract has no sample answer for ${type}: add one to sampleAnswers`);
        const { completion, usage } = adapter.translateChatResponse(await sample(), chatInput(false));
        expect(completion.object).toBe("chat.completion");
        // An upstream that speaks OpenAI's format is relayed as it answered (its model name included); a
        // translated answer is named after the public model the client asked for.
        expect(completion.model).toBeString();
        if (!adapter.relaysOpenAIFormat) expect(completion.model).toBe("public-model");
        expect(completion.id).toBeString();
        expect(completion.created).toBeNumber();
        const choices = completion.choices as { index: number; message: { role: string }; finish_reason: unknown }[];
        expect(choices.length).toBeGreaterThan(0);
        expect(choices[0]).toMatchObject({ index: 0, message: { role: "assistant" } });
        expect(usage).not.toBeNull();
        expect(usage?.promptTokens).toBeNumber();
        expect(usage?.completionTokens).toBeNumber();
        expect(completion.usage).toMatchObject({ prompt_tokens: usage?.promptTokens, completion_tokens: usage?.completionTokens });
      });

      test("ends a stream that carried no event without throwing, emitting only typed parts", async () => {
        const empty = new ReadableStream<EventSourceMessage>({ start: (controller) => controller.close() });
        const parts = await collect(empty.pipeThrough(adapter.createChatStreamTransformer(chatInput(true))));
        for (const part of parts) {
          expect(["chunk", "usage"]).toContain(part.type);
          if (part.type === "chunk") expect(part.chunk.object).toBe("chat.completion.chunk");
        }
      });

      test("streams a minimal answer in its own wire format as chat.completion.chunk parts, one with a finish reason, and one usage part", async () => {
        const sample = sampleStreams[type];
        if (!sample) throw new Error(`The adapter contract has no sample stream for ${type}: add one to sampleStreams`);
        const sampled = await sample();
        const events = adapter.createStreamDecoder
          ? new ReadableStream<Uint8Array>({
              start(controller) {
                controller.enqueue(typeof sampled === "string" ? new TextEncoder().encode(sampled) : sampled);
                controller.close();
              },
            }).pipeThrough(adapter.createStreamDecoder())
          : new ReadableStream<string>({
              start(controller) {
                controller.enqueue(typeof sampled === "string" ? sampled : new TextDecoder().decode(sampled));
                controller.close();
              },
            }).pipeThrough(new EventSourceParserStream());
        const parts = await collect(events.pipeThrough(adapter.createChatStreamTransformer(chatInput(true))));
        const chunks = parts.flatMap((part) => (part.type === "chunk" ? [part.chunk] : []));
        const usages = parts.flatMap((part) => (part.type === "usage" ? [part.usage] : []));
        expect(chunks.length).toBeGreaterThan(0);
        for (const chunk of chunks) expect(chunk.object).toBe("chat.completion.chunk");
        const finishReasons = chunks.flatMap((chunk) => (chunk.choices as { finish_reason?: unknown }[]).map((choice) => choice.finish_reason ?? null));
        expect(finishReasons.some((reason) => typeof reason === "string")).toBe(true);
        expect(usages).toHaveLength(1);
        expect(usages[0]?.promptTokens).toBeNumber();
        expect(usages[0]?.completionTokens).toBeNumber();
      });

      test("offers its optional capabilities as functions, the media one with serves and buildRequest", () => {
        for (const member of OPTIONAL_FUNCTIONS) {
          if (adapter[member] !== undefined) expect(adapter[member], member).toBeFunction();
        }
        if (adapter.media !== undefined) {
          expect(adapter.media.serves).toBeFunction();
          expect(adapter.media.buildRequest).toBeFunction();
        }
        if (adapter.tokenizer !== undefined) expect(["openai", "anthropic", "gemini", "other"]).toContain(adapter.tokenizer);
        if (adapter.ownedBy !== undefined) expect(adapter.ownedBy).toBeString();
      });
    });
  }
});
