/**
 * An OpenAI look-alike that speaks the Responses API (POST /v1/responses, streamed and not), as documented
 * in OpenAI's API reference ("Responses: Create a model response", "The response object", "Streaming
 * events": response.created, response.in_progress, response.output_item.added, response.content_part.added,
 * response.output_text.delta/.done, response.content_part.done, response.function_call_arguments.delta/.done,
 * response.output_item.done, response.completed, each with a sequence_number). It keeps the responses it
 * gave, so that a previous_response_id it never issued is refused as OpenAI refuses it. It also serves
 * POST /v1/chat/completions with tool calls (chat.completion and chat.completion.chunk objects, usage on
 * request), for tests of chat-only channels that need a function call; and both under /openai/v1 with an
 * `api-key` header, as Azure OpenAI's v1 API does.
 */
import { BehaviourQueue, presentedKey, readJsonOrText, RequestLog, startFakeServer } from "./fake-upstream-kit";

export type FakeResponsesBehaviour =
  | {
      kind: "text";
      text?: string;
      inputTokens?: number;
      outputTokens?: number;
      cachedTokens?: number;
      reasoningTokens?: number;
      /** Streams `data:` lines only, without `event:` lines, as some OpenAI-compatible vendors do. */
      unnamedEvents?: boolean;
      /** Web searches made before the answer: one `web_search_call` output item each (the web search tool). */
      searches?: number;
    }
  | { kind: "function_call"; name: string; arguments: string; callId?: string; inputTokens?: number; outputTokens?: number }
  | { kind: "error"; status: number; message?: string; code?: string | null };

export interface FakeResponsesRequest {
  path: string;
  headers: Record<string, string>;
  body: any;
}

export interface FakeOpenAIResponsesUpstream {
  /** Base URL as a client would configure it: "http://127.0.0.1:PORT/v1". */
  url: string;
  requests: FakeResponsesRequest[];
  /** Queues the behaviour of the next request (FIFO); an empty queue answers a short text. */
  enqueue(behaviour: FakeResponsesBehaviour): void;
  close(): Promise<void>;
}

function hexId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `${prefix}_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

function openAIError(status: number, message: string, param: string | null, code: string | null): Response {
  const type = status === 401 ? "invalid_request_error" : status >= 500 ? "server_error" : "invalid_request_error";
  return Response.json({ error: { message, type, param, code } }, { status });
}

function outputOf(behaviour: Exclude<FakeResponsesBehaviour, { kind: "error" }>): Array<Record<string, unknown>> {
  if (behaviour.kind === "function_call") {
    return [
      {
        id: hexId("fc"),
        type: "function_call",
        status: "completed",
        call_id: behaviour.callId ?? hexId("call"),
        name: behaviour.name,
        arguments: behaviour.arguments,
      },
    ];
  }
  const text = behaviour.text ?? "Hello from the Responses API.";
  const searches = Array.from({ length: behaviour.searches ?? 0 }, (_, index) => ({
    id: hexId("ws"),
    type: "web_search_call",
    status: "completed",
    action: { type: "search", query: `search ${index + 1}` },
  }));
  return [
    ...searches,
    { id: hexId("msg"), type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [], logprobs: [] }] },
  ];
}

function usageOf(behaviour: Exclude<FakeResponsesBehaviour, { kind: "error" }>) {
  const input = behaviour.inputTokens ?? 12;
  const output = behaviour.outputTokens ?? 5;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: behaviour.kind === "text" ? (behaviour.cachedTokens ?? 0) : 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: behaviour.kind === "text" ? (behaviour.reasoningTokens ?? 0) : 0 },
    total_tokens: input + output,
  };
}

function responseObject(body: any, id: string, status: string, output: unknown[], usage: unknown): Record<string, unknown> {
  return {
    id,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: body.model,
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: null },
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: "disabled",
    usage,
    user: null,
    metadata: body.metadata ?? {},
  };
}

/** The documented event sequence of one answer, numbered from 0. */
function responseEvents(body: any, id: string, output: Array<Record<string, any>>, usage: unknown): Array<Record<string, unknown>> {
  const events: Array<Record<string, unknown>> = [];
  const inProgress = responseObject(body, id, "in_progress", [], null);
  events.push({ type: "response.created", response: inProgress }, { type: "response.in_progress", response: inProgress });
  output.forEach((item, outputIndex) => {
    if (item.type === "function_call") {
      events.push({ type: "response.output_item.added", output_index: outputIndex, item: { ...item, status: "in_progress", arguments: "" } });
      const half = Math.ceil(item.arguments.length / 2);
      for (const delta of [item.arguments.slice(0, half), item.arguments.slice(half)]) {
        if (delta) events.push({ type: "response.function_call_arguments.delta", item_id: item.id, output_index: outputIndex, delta });
      }
      events.push({ type: "response.function_call_arguments.done", item_id: item.id, output_index: outputIndex, arguments: item.arguments });
    } else if (item.type === "web_search_call") {
      events.push({ type: "response.output_item.added", output_index: outputIndex, item: { ...item, status: "in_progress" } });
      for (const phase of ["in_progress", "searching", "completed"]) {
        events.push({ type: `response.web_search_call.${phase}`, item_id: item.id, output_index: outputIndex });
      }
    } else {
      const text: string = item.content[0].text;
      const place = { item_id: item.id, output_index: outputIndex, content_index: 0 };
      events.push({ type: "response.output_item.added", output_index: outputIndex, item: { ...item, status: "in_progress", content: [] } });
      events.push({ type: "response.content_part.added", ...place, part: { type: "output_text", text: "", annotations: [] } });
      for (const word of text.split(/(?<= )/)) events.push({ type: "response.output_text.delta", ...place, delta: word, logprobs: [] });
      events.push({ type: "response.output_text.done", ...place, text, logprobs: [] });
      events.push({ type: "response.content_part.done", ...place, part: item.content[0] });
    }
    events.push({ type: "response.output_item.done", output_index: outputIndex, item });
  });
  events.push({ type: "response.completed", response: responseObject(body, id, "completed", output, usage) });
  return events.map((event, sequence) => ({ ...event, sequence_number: sequence }));
}

function sse(events: Array<Record<string, unknown>>, named: boolean): Response {
  const text = events.map((event) => `${named ? `event: ${event.type}\n` : ""}data: ${JSON.stringify(event)}\n\n`).join("");
  return new Response(text, { headers: { "content-type": "text/event-stream; charset=utf-8" } });
}

/** POST /v1/chat/completions: a text or a tool call, as chat.completion or chunks (OpenAI, "Chat Completions"). */
function chatAnswer(body: any, behaviour: Exclude<FakeResponsesBehaviour, { kind: "error" }>): Response {
  const id = `chatcmpl-${crypto.randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const usage = usageOf(behaviour);
  const chatUsage = { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, total_tokens: usage.total_tokens };
  const call =
    behaviour.kind === "function_call"
      ? { id: behaviour.callId ?? hexId("call"), type: "function", function: { name: behaviour.name, arguments: behaviour.arguments } }
      : null;
  const text = behaviour.kind === "text" ? (behaviour.text ?? "Hello from the Responses API.") : null;
  const finishReason = call ? "tool_calls" : "stop";
  if (body.stream !== true) {
    const message = { role: "assistant", content: text, ...(call ? { tool_calls: [call] } : {}), refusal: null };
    return Response.json({ id, object: "chat.completion", created, model: body.model, choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }], usage: chatUsage });
  }
  const chunk = (delta: unknown, finish: string | null) => ({ id, object: "chat.completion.chunk", created, model: body.model, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
  const chunks: unknown[] = [chunk({ role: "assistant", content: "" }, null)];
  if (text) for (const word of text.split(/(?<= )/)) chunks.push(chunk({ content: word }, null));
  if (call) {
    chunks.push(chunk({ tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }, null));
    chunks.push(chunk({ tool_calls: [{ index: 0, function: { arguments: call.function.arguments } }] }, null));
  }
  chunks.push(chunk({}, finishReason));
  if (body.stream_options?.include_usage) chunks.push({ id, object: "chat.completion.chunk", created, model: body.model, choices: [], usage: chatUsage });
  const text_ = chunks.map((item) => `data: ${JSON.stringify(item)}\n\n`).join("") + "data: [DONE]\n\n";
  return new Response(text_, { headers: { "content-type": "text/event-stream; charset=utf-8" } });
}

export async function startFakeOpenAIResponsesUpstream(options: { requireApiKey?: string } = {}): Promise<FakeOpenAIResponsesUpstream> {
  const log = new RequestLog<FakeResponsesRequest>();
  const behaviours = new BehaviourQueue<FakeResponsesBehaviour>({ kind: "text" });
  const issued = new Set<string>();
  const server = startFakeServer({
    async fetch(request) {
      let path = new URL(request.url).pathname;
      const { body } = await readJsonOrText(request);
      log.record({ path, headers: Object.fromEntries(request.headers), body });
      if (options.requireApiKey && presentedKey(request) !== options.requireApiKey) {
        return openAIError(401, "Incorrect API key provided.", null, "invalid_api_key");
      }
      // Azure OpenAI's v1 API serves the same operations under /openai/v1 (deployment in the body's model).
      if (path.startsWith("/openai/v1/")) path = path.slice("/openai".length);
      if (request.method !== "POST" || (path !== "/v1/responses" && path !== "/v1/chat/completions")) {
        return openAIError(404, `Invalid URL (${request.method} ${path})`, null, null);
      }
      const behaviour = behaviours.next();
      if (behaviour.kind === "error") return openAIError(behaviour.status, behaviour.message ?? "The fake upstream failed.", null, behaviour.code ?? null);
      if (path === "/v1/chat/completions") return chatAnswer(body, behaviour);
      if (typeof body?.previous_response_id === "string" && !issued.has(body.previous_response_id)) {
        // OpenAI's answer for an id it does not know.
        return openAIError(400, `Previous response with id '${body.previous_response_id}' not found.`, "previous_response_id", "previous_response_not_found");
      }
      const id = hexId("resp");
      issued.add(id);
      const output = outputOf(behaviour);
      const usage = usageOf(behaviour);
      if (body?.stream === true) return sse(responseEvents(body, id, output, usage), !(behaviour.kind === "text" && behaviour.unnamedEvents));
      return Response.json(responseObject(body, id, "completed", output, usage));
    },
  });
  return {
    url: `${server.origin}/v1`,
    requests: log.requests,
    enqueue: (behaviour) => behaviours.enqueue(behaviour),
    close: () => server.close(),
  };
}
