import { defaultErrorBody } from "./fake-openai-upstream-wire";
import { BehaviourQueue, presentedKey, RequestLog, startFakeServer } from "./fake-upstream-kit";

/**
 * An upstream speaking OpenAI's media endpoints and the Cohere/Jina rerank shape, over real HTTP on port 0.
 * Shapes follow the providers' API references:
 * - images (generations, edits): platform.openai.com/docs/api-reference/images/object -
 *   `{created, data: [{url, revised_prompt} | {b64_json}], usage?}` (usage for gpt-image-1 only);
 * - transcriptions and translations: platform.openai.com/docs/api-reference/audio/json-object and
 *   verbose-json-object - json `{text, usage: {type: "duration", seconds}}`, verbose_json `{task, language,
 *   duration, text, segments, usage}`, and text / srt / vtt as plain text;
 * - speech: platform.openai.com/docs/api-reference/audio/createSpeech - the audio file content, streamed;
 * - moderations: platform.openai.com/docs/api-reference/moderations/object - `{id, model, results: [...]}`;
 * - rerank: jina.ai/reranker (`{model, usage: {total_tokens}, results: [{index, relevance_score, document}]}`)
 *   and docs.cohere.com/reference/rerank (`{id, results: [{index, relevance_score}], meta: {billed_units}}`).
 * Azure OpenAI's deployment paths (`/openai/deployments/{name}/...?api-version=`) are served as well.
 */

export interface MediaRequestSeen {
  /** The operation, whatever the path's prefix: "images/generations", "audio/speech", "rerank", ... */
  operation: string;
  /** The path as received (Azure's deployment path included). */
  path: string;
  query: string;
  headers: Record<string, string>;
  contentType: string;
  /** The JSON body, or a form's text fields. */
  fields: Record<string, unknown>;
  /** A form's file parts: name, filename, type, size and the SHA-256 of their bytes. */
  files: Array<{ field: string; filename: string; type: string; size: number; sha256: string }>;
}

export type MediaBehaviour =
  | { kind: "ok" }
  | { kind: "error"; status: number; body?: unknown };

export interface FakeMediaUpstreamOptions {
  /** When set, a request without this key (Bearer, or Azure's `api-key`) gets OpenAI's 401. */
  requireApiKey?: string;
  /** The duration the transcription answers report, in seconds (verbose_json's `duration`). Default 8.47. */
  durationSeconds?: number;
  /** The rerank answer's shape. Default "jina". */
  rerankShape?: "jina" | "cohere";
  /** The bytes /audio/speech answers with. Default: 64 KiB of a repeating pattern behind an ID3 tag. */
  speechBytes?: Uint8Array;
}

export interface FakeMediaUpstream {
  /** Base URL with /v1, as an OpenAI-compatible channel is configured. */
  url: string;
  /** Base URL without /v1, as an Azure channel is configured. */
  origin: string;
  requests: MediaRequestSeen[];
  speechBytes: Uint8Array;
  /** Queues the behaviour of the next request (FIFO); `ok` when none is queued. */
  enqueue(behaviour: MediaBehaviour): void;
  close(): Promise<void>;
}

const operations = ["images/generations", "images/edits", "audio/transcriptions", "audio/translations", "audio/speech", "moderations", "rerank"];

function operationOf(path: string): string | null {
  const match = /^(?:\/v1|\/openai\/deployments\/[^/]+|\/openai\/v1)\/(.+)$/.exec(path);
  return match && operations.includes(match[1]!) ? match[1]! : null;
}

function defaultSpeechBytes(): Uint8Array {
  const bytes = new Uint8Array(64 * 1024);
  bytes.set([0x49, 0x44, 0x33, 0x04, 0, 0, 0, 0, 0, 0]);
  for (let index = 10; index < bytes.length; index++) bytes[index] = (index * 31) % 251;
  return bytes;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "x-request-id": `req_${crypto.randomUUID().replaceAll("-", "")}` },
  });
}

async function sha256(bytes: ArrayBuffer): Promise<string> {
  return Buffer.from(await crypto.subtle.digest("SHA-256", bytes)).toString("hex");
}

function imagesAnswer(fields: Record<string, unknown>): Response {
  const count = Number(fields.n ?? 1);
  const gptImage = String(fields.model).startsWith("gpt-image");
  const data = Array.from({ length: count }, (_, index) =>
    gptImage || fields.response_format === "b64_json"
      ? { b64_json: Buffer.from(`fake image ${index}`).toString("base64") }
      : { url: `https://images.example/fake-${index}.png`, revised_prompt: `A revised ${String(fields.prompt)}` },
  );
  const usage = gptImage
    ? { total_tokens: 100 + 272 * count, input_tokens: 100, output_tokens: 272 * count, input_tokens_details: { text_tokens: 100, image_tokens: 0 } }
    : undefined;
  return json(200, { created: Math.floor(Date.now() / 1000), data, ...(usage ? { usage } : {}) });
}

function transcriptionAnswer(operation: string, fields: Record<string, unknown>, durationSeconds: number): Response {
  const text = operation === "audio/translations" ? "Hello from the translated audio." : "Hello from the transcribed audio.";
  const format = fields.response_format ?? "json";
  const usage = { type: "duration", seconds: Math.ceil(durationSeconds) };
  if (format === "text") return new Response(`${text}\n`, { headers: { "content-type": "text/plain; charset=utf-8" } });
  if (format === "srt") return new Response(`1\n00:00:00,000 --> 00:00:02,000\n${text}\n\n`, { headers: { "content-type": "text/plain; charset=utf-8" } });
  if (format === "vtt") return new Response(`WEBVTT\n\n00:00:00.000 --> 00:00:02.000\n${text}\n\n`, { headers: { "content-type": "text/vtt; charset=utf-8" } });
  if (format === "verbose_json") {
    return json(200, {
      task: operation === "audio/translations" ? "translate" : "transcribe",
      language: "english",
      duration: durationSeconds,
      text,
      segments: [
        { id: 0, seek: 0, start: 0, end: durationSeconds, text, tokens: [50364, 2425], temperature: 0, avg_logprob: -0.2, compression_ratio: 1.1, no_speech_prob: 0.01 },
      ],
      usage,
    });
  }
  return json(200, { text, usage });
}

function moderationAnswer(fields: Record<string, unknown>): Response {
  const inputs = Array.isArray(fields.input) ? fields.input : [fields.input];
  const categories = { harassment: false, hate: false, "self-harm": false, sexual: false, violence: false };
  const scores = { harassment: 0.0001, hate: 0.00002, "self-harm": 0.00001, sexual: 0.00003, violence: 0.0004 };
  return json(200, {
    id: `modr-${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`,
    model: fields.model ?? "omni-moderation-latest",
    results: inputs.map(() => ({ flagged: false, categories, category_scores: scores, category_applied_input_types: { violence: ["text"] } })),
  });
}

function rerankAnswer(fields: Record<string, unknown>, shape: "jina" | "cohere"): Response {
  const documents = (fields.documents as unknown[]).map((document) => (typeof document === "string" ? document : String((document as { text: string }).text)));
  const query = String(fields.query);
  const ranked = documents
    .map((text, index) => ({ index, text, relevance_score: text.includes(query) ? 0.9 - index * 0.01 : 0.1 - index * 0.01 }))
    .sort((left, right) => right.relevance_score - left.relevance_score)
    .slice(0, typeof fields.top_n === "number" ? fields.top_n : documents.length);
  if (shape === "cohere") {
    return json(200, {
      id: crypto.randomUUID(),
      results: ranked.map(({ index, relevance_score }) => ({ index, relevance_score })),
      meta: { api_version: { version: "1" }, billed_units: { search_units: 1 } },
    });
  }
  const tokens = Math.ceil((query.length + documents.join("").length) / 4);
  return json(200, {
    model: fields.model,
    usage: { total_tokens: tokens },
    results: ranked.map(({ index, text, relevance_score }) => ({ index, relevance_score, document: { text } })),
  });
}

/** A response body sent in 16 KiB chunks, as an audio stream arrives. */
function chunked(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + 16 * 1024));
      offset += 16 * 1024;
    },
  });
}

/** Starts the fake on 127.0.0.1 and a free port; close() it after the test file. */
export async function startFakeMediaUpstream(options: FakeMediaUpstreamOptions = {}): Promise<FakeMediaUpstream> {
  const log = new RequestLog<MediaRequestSeen>();
  const behaviours = new BehaviourQueue<MediaBehaviour>({ kind: "ok" });
  const speechBytes = options.speechBytes ?? defaultSpeechBytes();
  const durationSeconds = options.durationSeconds ?? 8.47;
  const server = startFakeServer({
    async fetch(request) {
      const url = new URL(request.url);
      const operation = operationOf(url.pathname);
      const contentType = request.headers.get("content-type") ?? "";
      const fields: Record<string, unknown> = {};
      const files: MediaRequestSeen["files"] = [];
      if (contentType.startsWith("multipart/form-data")) {
        for (const [name, part] of (await request.formData()).entries()) {
          if (typeof part === "string") fields[name] = part;
          else {
            const file = part as unknown as File;
            files.push({ field: name, filename: file.name, type: file.type, size: file.size, sha256: await sha256(await file.arrayBuffer()) });
          }
        }
      } else {
        const text = await request.text();
        if (text !== "") Object.assign(fields, JSON.parse(text));
      }
      log.record({ operation: operation ?? "", path: url.pathname, query: url.search, headers: Object.fromEntries(request.headers), contentType, fields, files });
      if (options.requireApiKey && presentedKey(request) !== options.requireApiKey) return json(401, defaultErrorBody(401));
      if (request.method !== "POST" || !operation) return json(404, defaultErrorBody(404));
      const behaviour = behaviours.next();
      if (behaviour.kind === "error") return json(behaviour.status, behaviour.body ?? defaultErrorBody(behaviour.status));
      if (operation.startsWith("images/")) return imagesAnswer(fields);
      if (operation === "audio/speech") {
        const format = String(fields.response_format ?? "mp3");
        const type = format === "mp3" ? "audio/mpeg" : format === "wav" ? "audio/wav" : `audio/${format}`;
        return new Response(chunked(speechBytes), { headers: { "content-type": type, "transfer-encoding": "chunked" } });
      }
      if (operation === "audio/transcriptions" || operation === "audio/translations") return transcriptionAnswer(operation, fields, durationSeconds);
      if (operation === "moderations") return moderationAnswer(fields);
      return rerankAnswer(fields, options.rerankShape ?? "jina");
    },
  });
  return {
    url: `${server.origin}/v1`,
    origin: server.origin,
    requests: log.requests,
    speechBytes,
    enqueue: (behaviour) => behaviours.enqueue(behaviour),
    close: () => server.close(),
  };
}
