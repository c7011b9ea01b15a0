/**
 * A fake Bedrock Runtime on 127.0.0.1:0, as AWS's API reference documents it: Converse and ConverseStream
 * (POST /model/{modelId}/converse, /converse-stream) for any model, InvokeModel and
 * InvokeModelWithResponseStream (/invoke, /invoke-with-response-stream) with Claude's Messages body
 * (anthropic_version "bedrock-2023-05-31", no model, no stream), streams as AWS event-stream frames encoded
 * by AWS's codec, errors as `{"message"}` with the type in X-Amzn-ErrorType. Every request must be signed
 * with SigV4 for the fake's access key (checked by verify-sigv4.ts, independently of the gateway's signer)
 * or carry its Bedrock API key as a bearer token; anything else gets Bedrock's 403.
 */
import { chunkFrame, eventFrame, exceptionFrame } from "./bedrock-event-stream";
import { RequestLog, startFakeServer } from "./fake-upstream-kit";
import { type SigV4Secret, verifySigV4 } from "./verify-sigv4";

export type FakeBedrockBehaviour =
  | { kind: "text"; text?: string; inputTokens?: number; outputTokens?: number; cacheReadTokens?: number; cacheWriteTokens?: number }
  | { kind: "tool"; name: string; input: Record<string, unknown> }
  | { kind: "error"; status: number; errorType: string; message?: string }
  /** A stream that starts, then ends with a modeled exception frame. */
  | { kind: "stream-exception"; exceptionType: string; message: string };

export interface SeenBedrockRequest {
  path: string;
  /** The model id as the path carries it, decoded. */
  modelId: string;
  action: string;
  headers: Record<string, string>;
  body: any;
}

export interface FakeBedrockUpstream {
  url: string;
  requests: SeenBedrockRequest[];
  log: RequestLog<SeenBedrockRequest>;
  enqueue(behaviour: FakeBedrockBehaviour): void;
  close(): Promise<void>;
}

export interface FakeBedrockOptions {
  region: string;
  credentials: SigV4Secret;
  /** A Bedrock API key the fake also accepts, as `Authorization: Bearer`. */
  apiKey?: string;
}

function awsError(status: number, errorType: string, message: string): Response {
  return Response.json({ message }, { status, headers: { "x-amzn-errortype": `${errorType}:http://internal.amazon.com/coral/com.amazon.bedrock/`, "x-amzn-requestid": crypto.randomUUID() } });
}

function converseUsage(behaviour: FakeBedrockBehaviour & { kind: "text" }) {
  const inputTokens = behaviour.inputTokens ?? 12;
  const outputTokens = behaviour.outputTokens ?? 6;
  const cacheRead = behaviour.cacheReadTokens ?? 0;
  const cacheWrite = behaviour.cacheWriteTokens ?? 0;
  return {
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens + cacheRead + cacheWrite,
    ...(cacheRead || cacheWrite ? { cacheReadInputTokens: cacheRead, cacheWriteInputTokens: cacheWrite } : {}),
  };
}

/** A stream body that sends each frame as its own chunk, the first one split in two (a frame across reads). */
function frameStream(frames: Uint8Array[]): Response {
  const [first, ...rest] = frames;
  const pieces = first ? [first.subarray(0, 7), first.subarray(7), ...rest] : rest;
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (index < pieces.length) controller.enqueue(pieces[index++]!);
      else controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": crypto.randomUUID() } });
}

function converseAnswer(behaviour: FakeBedrockBehaviour, stream: boolean): Response {
  if (behaviour.kind === "tool") {
    const toolUseId = `tooluse_${crypto.randomUUID().slice(0, 12)}`;
    const usage = { inputTokens: 40, outputTokens: 12, totalTokens: 52 };
    if (!stream) {
      return Response.json({ output: { message: { role: "assistant", content: [{ toolUse: { toolUseId, name: behaviour.name, input: behaviour.input } }] } }, stopReason: "tool_use", usage, metrics: { latencyMs: 300 } });
    }
    const json = JSON.stringify(behaviour.input);
    const half = Math.floor(json.length / 2);
    return frameStream([
      eventFrame("messageStart", { p: "abcdef", role: "assistant" }),
      eventFrame("contentBlockStart", { contentBlockIndex: 0, start: { toolUse: { name: behaviour.name, toolUseId } }, p: "abc" }),
      eventFrame("contentBlockDelta", { contentBlockIndex: 0, delta: { toolUse: { input: json.slice(0, half) } }, p: "abcd" }),
      eventFrame("contentBlockDelta", { contentBlockIndex: 0, delta: { toolUse: { input: json.slice(half) } }, p: "abcd" }),
      eventFrame("contentBlockStop", { contentBlockIndex: 0, p: "ab" }),
      eventFrame("messageStop", { stopReason: "tool_use", p: "abcdefg" }),
      eventFrame("metadata", { usage, metrics: { latencyMs: 300 }, p: "abc" }),
    ]);
  }
  const text = behaviour.kind === "text" ? (behaviour.text ?? "Hello from Bedrock") : "partial";
  const usage = converseUsage(behaviour.kind === "text" ? behaviour : { kind: "text" });
  if (!stream) return Response.json({ output: { message: { role: "assistant", content: [{ text }] } }, stopReason: "end_turn", usage, metrics: { latencyMs: 250 } });
  const words = text.split(/(?<= )/);
  const frames = [eventFrame("messageStart", { p: "abcdefghij", role: "assistant" })];
  for (const word of words) frames.push(eventFrame("contentBlockDelta", { contentBlockIndex: 0, delta: { text: word }, p: "abcdefgh" }));
  if (behaviour.kind === "stream-exception") {
    frames.push(exceptionFrame(behaviour.exceptionType, behaviour.message));
    return frameStream(frames);
  }
  frames.push(
    eventFrame("contentBlockStop", { contentBlockIndex: 0, p: "abcdefgh" }),
    eventFrame("messageStop", { stopReason: "end_turn", p: "abcdefgh" }),
    eventFrame("metadata", { usage, metrics: { latencyMs: 250 }, p: "abcdefgh" }),
  );
  return frameStream(frames);
}

function anthropicUsage(behaviour: FakeBedrockBehaviour & { kind: "text" }) {
  return {
    input_tokens: behaviour.inputTokens ?? 12,
    output_tokens: behaviour.outputTokens ?? 6,
    cache_read_input_tokens: behaviour.cacheReadTokens ?? 0,
    cache_creation_input_tokens: behaviour.cacheWriteTokens ?? 0,
  };
}

/** InvokeModel's Claude answer: Anthropic's Messages response, as Bedrock returns it (its own message id). */
function invokeAnswer(behaviour: FakeBedrockBehaviour, modelId: string, stream: boolean): Response {
  const textBehaviour = behaviour.kind === "text" ? behaviour : { kind: "text" as const };
  const text = textBehaviour.text ?? "Hello from Claude on Bedrock";
  const usage = anthropicUsage(textBehaviour);
  const id = `msg_bdrk_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
  if (!stream) {
    return Response.json({ id, type: "message", role: "assistant", model: modelId, content: [{ type: "text", text }], stop_reason: "end_turn", stop_sequence: null, usage });
  }
  const frames = [
    chunkFrame({ type: "message_start", message: { id, type: "message", role: "assistant", model: modelId, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }),
    chunkFrame({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    ...text.split(/(?<= )/).map((piece) => chunkFrame({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: piece } })),
  ];
  if (behaviour.kind === "stream-exception") return frameStream([...frames, exceptionFrame(behaviour.exceptionType, behaviour.message)]);
  frames.push(
    chunkFrame({ type: "content_block_stop", index: 0 }),
    chunkFrame({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }),
    chunkFrame({
      type: "message_stop",
      "amazon-bedrock-invocationMetrics": { inputTokenCount: usage.input_tokens, outputTokenCount: usage.output_tokens, invocationLatency: 420, firstByteLatency: 180 },
    }),
  );
  return frameStream(frames);
}

export async function startFakeBedrockUpstream(options: FakeBedrockOptions): Promise<FakeBedrockUpstream> {
  const queue: FakeBedrockBehaviour[] = [];
  const log = new RequestLog<SeenBedrockRequest>();
  const server = startFakeServer({
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const text = await request.text();
      const authorization = request.headers.get("authorization") ?? "";
      if (authorization.startsWith("Bearer ")) {
        if (!options.apiKey || authorization.slice("Bearer ".length) !== options.apiKey) return awsError(403, "AccessDeniedException", "Authentication failed: Please make sure your API Key is valid.");
      } else {
        const verdict = verifySigV4(request, text, options.credentials, "bedrock", options.region);
        if (!verdict.ok) return awsError(403, verdict.errorType, verdict.message);
      }
      const match = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/.exec(url.pathname);
      if (!match || request.method !== "POST") return awsError(404, "UnknownOperationException", "Unknown operation");
      const modelId = decodeURIComponent(match[1]!);
      const action = match[2]!;
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        return awsError(400, "ValidationException", "Malformed input request, please reformat your input and try again.");
      }
      log.record({ path: url.pathname, modelId, action, headers: Object.fromEntries(request.headers), body });
      const behaviour = queue.shift() ?? { kind: "text" };
      if (behaviour.kind === "error") return awsError(behaviour.status, behaviour.errorType, behaviour.message ?? `${behaviour.errorType} from the fake`);
      if (action === "converse" || action === "converse-stream") {
        if (!Array.isArray(body?.messages) || body.messages.length === 0) return awsError(400, "ValidationException", "The model returned the following errors: messages: field required");
        return converseAnswer(behaviour, action === "converse-stream");
      }
      if (!/(^|\.)anthropic\./.test(modelId)) return awsError(400, "ValidationException", "This fake serves InvokeModel for Claude only.");
      for (const extraneous of ["model", "stream"]) {
        if (extraneous in body) return awsError(400, "ValidationException", `Malformed input request: #: extraneous key [${extraneous}] is not permitted, please reformat your input and try again.`);
      }
      if (body.anthropic_version !== "bedrock-2023-05-31") return awsError(400, "ValidationException", "Malformed input request: #: required key [anthropic_version] not found");
      return invokeAnswer(behaviour, modelId, action === "invoke-with-response-stream");
    },
  });
  return { url: server.origin, requests: log.requests, log, enqueue: (behaviour) => queue.push(behaviour), close: () => server.close() };
}
