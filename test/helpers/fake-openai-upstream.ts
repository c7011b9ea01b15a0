import {
  type ChunkOptions,
  type CompletionIdentity,
  type UsageNumbers,
  buildChatCompletion,
  buildContentChunk,
  buildEmbeddingsResponse,
  buildFinishChunk,
  buildModelsList,
  buildRoleChunk,
  buildUsageChunk,
  defaultErrorBody,
  fakeDefaults,
  invalidUrlBody,
  newCompletionIdentity,
  openAIErrorFixtures,
  splitIntoDeltas,
  sseDoneFrame,
  sseFrame,
} from "./fake-openai-upstream-wire";
import { BehaviourQueue, readJsonOrText, RequestLog, startFakeServer } from "./fake-upstream-kit";

export { fakeDefaults, openAIErrorFixtures, splitIntoDeltas } from "./fake-openai-upstream-wire";

export interface FakeUpstreamRequest {
  /** URL path without the query string, e.g. "/v1/chat/completions". */
  path: string;
  method: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Parsed JSON body; the raw text when it is not JSON; undefined when empty. */
  body: any;
}

export interface FakeOpenAIUpstream {
  /** Base URL as a client would configure it: "http://127.0.0.1:PORT/v1". */
  url: string;
  /** Every request received, in order, including the ones refused for a missing key or an unknown path. */
  requests: FakeUpstreamRequest[];
  /**
   * Queues the behaviour of a coming request (FIFO, one per request); when the queue is empty the default
   * behaviour answers. Requests refused for auth (401) or an unknown path (404) do not consume the queue.
   */
  enqueue(behaviour: FakeBehaviour): void;
  setDefault(behaviour: FakeBehaviour): void;
  /** Resolves when the server has seen `count` requests in total (wait for conditions, never sleep). */
  waitForRequests(count: number): Promise<void>;
  /**
   * Resolves when a streaming response was cancelled by the client (connection closed before the end).
   * Each call claims one cancellation, in order: the second call waits for the second cancellation, and a
   * cancellation that happened before the call still counts.
   */
  waitForStreamCancel(): Promise<void>;
  /**
   * Like waitForStreamCancel, for any response the client abandoned before its end: a "hang", a stalled
   * or normal stream. Claims are counted separately from waitForStreamCancel's.
   */
  waitForClientAbort(): Promise<void>;
  close(): Promise<void>;
}

export type FakeBehaviour =
  | {
      kind: "ok";
      content?: string;
      promptTokens?: number;
      /** Defaults to the number of deltas the content is streamed in (one per word). */
      completionTokens?: number;
      cachedTokens?: number;
      /** Leaves `usage` out entirely, as some vLLM/Ollama setups do: no usage chunk, no `usage: null`. */
      omitUsage?: boolean;
    }
  /** Default body: OpenAI's error fixture for that status (see openAIErrorFixtures for variants). */
  | { kind: "error"; status: number; body?: unknown; headers?: Record<string, string> }
  /** Sends the role chunk and N content chunks, then nothing until the client goes away. Non-chat paths hang. */
  | { kind: "stall-stream"; chunksBeforeStall: number }
  /** Never answers, until the client goes away. */
  | { kind: "hang" };

export interface FakeOpenAIUpstreamOptions {
  /** When set, a request without `Authorization: Bearer <requireApiKey>` gets OpenAI's 401 invalid_api_key. */
  requireApiKey?: string;
  /** Pause between streamed chunks, to imitate a model generating; 0 by default. */
  chunkDelayMs?: number;
}

/** Counts events and lets each waiter claim the next unclaimed one, whether it happened before or after. */
function claimableEvents() {
  let occurred = 0;
  let claimed = 0;
  const waiters: { target: number; resolve: () => void }[] = [];
  const settle = () => {
    for (const waiter of [...waiters]) {
      if (occurred >= waiter.target) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  return {
    record() {
      occurred += 1;
      settle();
    },
    next(): Promise<void> {
      claimed += 1;
      const target = claimed;
      return new Promise((resolve) => {
        waiters.push({ target, resolve });
        settle();
      });
    },
  };
}

function upstreamHeaders(extra: Record<string, string>): Headers {
  return new Headers({
    "x-request-id": `req_${crypto.randomUUID().replaceAll("-", "")}`,
    "openai-version": "2020-10-01",
    "openai-processing-ms": "42",
    ...extra,
  });
}

function jsonResponse(status: number, body: unknown, extraHeaders: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: upstreamHeaders({ "content-type": "application/json", ...extraHeaders }),
  });
}

type Route = "chat" | "completions" | "embeddings" | "models" | "model" | undefined;

function routeOf(method: string, path: string): Route {
  if (method === "POST" && path === "/v1/chat/completions") return "chat";
  if (method === "POST" && path === "/v1/completions") return "completions";
  if (method === "POST" && path === "/v1/embeddings") return "embeddings";
  if (method === "GET" && path === "/v1/models") return "models";
  if (method === "GET" && path.startsWith("/v1/models/") && path.length > "/v1/models/".length) return "model";
  return undefined;
}

interface ChatStreamPlan {
  identity: CompletionIdentity;
  chunkOptions: ChunkOptions;
  deltas: string[];
  usage: UsageNumbers | undefined;
  /** Set for "stall-stream": how many content chunks to send before going silent. */
  stallAfter?: number;
}

function* chatStreamFrames(plan: ChatStreamPlan): Generator<Uint8Array> {
  const { identity, chunkOptions, deltas } = plan;
  yield sseFrame(buildRoleChunk(identity, chunkOptions));
  const contentCount = plan.stallAfter ?? deltas.length;
  for (let index = 0; index < contentCount; index += 1) {
    yield sseFrame(buildContentChunk(identity, chunkOptions, deltas[index % deltas.length] ?? " word"));
  }
  if (plan.stallAfter !== undefined) return;
  yield sseFrame(buildFinishChunk(identity, chunkOptions));
  if (chunkOptions.includeUsage && plan.usage) yield sseFrame(buildUsageChunk(identity, chunkOptions, plan.usage));
  yield sseDoneFrame;
}

/** Starts an OpenAI look-alike on 127.0.0.1 and a free port; close() it after the test file. */
export async function startFakeOpenAIUpstream(options: FakeOpenAIUpstreamOptions = {}): Promise<FakeOpenAIUpstream> {
  const chunkDelayMs = options.chunkDelayMs ?? 0;
  const log = new RequestLog<FakeUpstreamRequest>();
  const behaviours = new BehaviourQueue<FakeBehaviour>({ kind: "ok" });
  const streamCancels = claimableEvents();
  const clientAborts = claimableEvents();
  /** Releases everything that waits for a client to go away, so close() never leaves promises pending. */
  const pendingForever = new Set<() => void>();

  const untilClientGoesAway = (request: Request) =>
    new Promise<void>((resolve) => {
      const release = () => {
        pendingForever.delete(release);
        resolve();
      };
      pendingForever.add(release);
      if (request.signal.aborted) release();
      else request.signal.addEventListener("abort", release, { once: true });
    });

  const hang = async (request: Request): Promise<Response> => {
    const alreadyAborted = request.signal.aborted;
    request.signal.addEventListener("abort", () => clientAborts.record(), { once: true });
    if (alreadyAborted) clientAborts.record();
    await untilClientGoesAway(request);
    return new Response(null, { status: 499 });
  };

  const streamResponse = (request: Request, plan: ChatStreamPlan): Response => {
    const frames = chatStreamFrames(plan);
    let isFinished = false;
    let isCancelled = false;
    let isFirstFrame = true;
    const onClientGone = () => {
      if (isFinished || isCancelled) return;
      isCancelled = true;
      streamCancels.record();
      clientAborts.record();
    };
    request.signal.addEventListener("abort", onClientGone, { once: true });
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          if (chunkDelayMs > 0 && !isFirstFrame) await Bun.sleep(chunkDelayMs);
          isFirstFrame = false;
          if (isCancelled) return;
          const next = frames.next();
          if (!next.done) {
            controller.enqueue(next.value);
            return;
          }
          if (plan.stallAfter !== undefined) {
            await untilClientGoesAway(request);
            return;
          }
          isFinished = true;
          controller.close();
        },
        cancel() {
          onClientGone();
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, {
      status: 200,
      headers: upstreamHeaders({ "content-type": "text/event-stream; charset=utf-8" }),
    });
  };

  const chatPlan = (body: any, behaviour: FakeBehaviour): ChatStreamPlan & { content: string } => {
    const ok = behaviour.kind === "ok" ? behaviour : { kind: "ok" as const };
    const content = ok.content ?? fakeDefaults.content;
    const deltas = splitIntoDeltas(content);
    const usage = ok.omitUsage
      ? undefined
      : {
          promptTokens: ok.promptTokens ?? fakeDefaults.promptTokens,
          completionTokens: ok.completionTokens ?? deltas.length,
          cachedTokens: ok.cachedTokens ?? fakeDefaults.cachedTokens,
        };
    return {
      content,
      deltas,
      usage,
      identity: newCompletionIdentity(String(body?.model ?? "")),
      chunkOptions: {
        includeUsage: body?.stream_options?.include_usage === true && !ok.omitUsage,
        includeObfuscation: body?.stream_options?.include_obfuscation !== false,
      },
      stallAfter: behaviour.kind === "stall-stream" ? behaviour.chunksBeforeStall : undefined,
    };
  };

  const answer = async (request: Request, route: NonNullable<Route>, path: string, body: any, isInvalidJson: boolean) => {
    const behaviour = behaviours.next();
    if (behaviour.kind === "error") {
      return jsonResponse(behaviour.status, behaviour.body ?? defaultErrorBody(behaviour.status), behaviour.headers);
    }
    if (behaviour.kind === "hang") return hang(request);
    if (behaviour.kind === "stall-stream") {
      return route === "chat" ? streamResponse(request, chatPlan(body, behaviour)) : hang(request);
    }
    if (isInvalidJson) return jsonResponse(400, openAIErrorFixtures.invalidJson);
    if (route === "chat") {
      const plan = chatPlan(body, behaviour);
      if (body?.stream === true) return streamResponse(request, plan);
      return jsonResponse(200, buildChatCompletion(plan.identity, plan.content, plan.usage));
    }
    if (route === "completions") {
      // Legacy text completion, non-streamed, in the shape of OpenAI's reference for POST /v1/completions.
      const plan = chatPlan(body, behaviour);
      return jsonResponse(200, {
        id: plan.identity.id.replace("chatcmpl-", "cmpl-"),
        object: "text_completion",
        created: plan.identity.created,
        model: plan.identity.model,
        system_fingerprint: "fp_44709d6fcb",
        choices: [{ text: plan.content, index: 0, logprobs: null, finish_reason: "length" }],
        ...(plan.usage
          ? { usage: { prompt_tokens: plan.usage.promptTokens, completion_tokens: plan.usage.completionTokens, total_tokens: plan.usage.promptTokens + plan.usage.completionTokens } }
          : {}),
      });
    }
    if (route === "embeddings") {
      return jsonResponse(
        200,
        buildEmbeddingsResponse({
          model: String(body?.model ?? ""),
          input: body?.input,
          encodingFormat: body?.encoding_format === "base64" ? "base64" : "float",
          dimensions: typeof body?.dimensions === "number" ? body.dimensions : fakeDefaults.embeddingDimensions,
          promptTokens: behaviour.promptTokens,
          omitUsage: behaviour.omitUsage === true,
        }),
      );
    }
    const models = buildModelsList();
    if (route === "models") return jsonResponse(200, models);
    const id = decodeURIComponent(path.slice("/v1/models/".length));
    const model = models.data.find((candidate) => candidate.id === id);
    if (model) return jsonResponse(200, model);
    const notFound = defaultErrorBody(404);
    notFound.error.message = `The model \`${id}\` does not exist or you do not have access to it.`;
    return jsonResponse(404, notFound);
  };

  const server = startFakeServer({
    // Stalled streams and hung requests must stay open until the client gives up, not Bun's 10 s default.
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const { body, isInvalidJson } = await readJsonOrText(request);
      const headers = Object.fromEntries(request.headers);
      log.record({ path: url.pathname, method: request.method, headers, body });
      if (options.requireApiKey !== undefined && headers.authorization !== `Bearer ${options.requireApiKey}`) {
        return jsonResponse(401, openAIErrorFixtures.invalidApiKey);
      }
      const route = routeOf(request.method, url.pathname);
      if (!route) return jsonResponse(404, invalidUrlBody(request.method, url.pathname));
      return answer(request, route, url.pathname, body, isInvalidJson);
    },
  });

  return {
    url: `${server.origin}/v1`,
    requests: log.requests,
    enqueue: (behaviour) => behaviours.enqueue(behaviour),
    setDefault: (behaviour) => behaviours.setDefault(behaviour),
    waitForRequests: (count) => log.waitFor(count),
    waitForStreamCancel: () => streamCancels.next(),
    waitForClientAbort: () => clientAborts.next(),
    async close() {
      for (const release of [...pendingForever]) release();
      await server.close();
    },
  };
}
