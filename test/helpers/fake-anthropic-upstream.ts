import { framesResponse, startFakeServer } from "./fake-upstream-kit";

/**
 * A fake Anthropic Messages API on 127.0.0.1:0, speaking the documented wire format: POST /v1/messages,
 * non-streamed messages and the SSE event sequence (message_start, content_block_start/delta/stop,
 * message_delta, message_stop, with ping), POST /v1/messages/count_tokens
 * (https://docs.anthropic.com/en/api/messages-count-tokens: `{"input_tokens": N}`, or a queued error), and
 * Anthropic's error body.
 */
export type FakeAnthropicBehaviour =
  | {
      kind: "text";
      text?: string;
      inputTokens?: number;
      outputTokens?: number;
      cacheReadTokens?: number;
      /** Prompt tokens written to the cache for 5 minutes (cache_creation_input_tokens when no 1-hour writes are given). */
      cacheCreationTokens?: number;
      /**
       * Prompt tokens written to the cache for 1 hour: the usage then carries `cache_creation` split by
       * lifetime, as the API does since the 1-hour TTL (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching),
       * with cache_creation_input_tokens their sum.
       */
      cacheWrite1hTokens?: number;
      /**
       * Web searches made before the text (the web_search server tool): a server_tool_use block and a
       * web_search_tool_result block each, and `usage.server_tool_use.web_search_requests`.
       */
      searches?: number;
    }
  | { kind: "tool"; name: string; input: Record<string, unknown>; text?: string }
  /**
   * A model asked for `value` as JSON, answering as the real API does for what the request carries: a
   * forced tool (tool_choice `tool`, or `any`) is answered with that tool's tool_use block alone, its input
   * the value, since forcing prefills the assistant turn so no text comes first
   * (https://docs.anthropic.com/en/docs/build-with-claude/tool-use#forcing-tool-use); `output_config.format`
   * with the value as the text (https://platform.claude.com/docs/en/build-with-claude/structured-outputs);
   * anything else with prose around a JSON block, as an unconstrained model writes it.
   */
  | { kind: "json"; value: Record<string, unknown> }
  | { kind: "error"; status: number; type?: string; message?: string };

/** The count the fake's count_tokens answers for a body (deterministic, so that tests can expect it). */
export function fakeInputTokens(body: unknown): number {
  return Math.ceil(JSON.stringify(body).length / 4);
}

function answerForJson(value: Record<string, unknown>, body: any): Exclude<FakeAnthropicBehaviour, { kind: "json" }> {
  const choice = body?.tool_choice;
  if (choice?.type === "tool") return { kind: "tool", name: choice.name, input: value };
  if (choice?.type === "any" && Array.isArray(body?.tools) && body.tools.length > 0) return { kind: "tool", name: body.tools.at(-1).name, input: value };
  if (body?.output_config?.format?.type === "json_schema") return { kind: "text", text: JSON.stringify(value) };
  return { kind: "text", text: `Sure! Here is the JSON you asked for:\n\n\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\`` };
}

export interface FakeAnthropicUpstream {
  /** Base URL as an operator configures it (no /v1): http://127.0.0.1:PORT */
  url: string;
  requests: Array<{ path: string; headers: Record<string, string>; body: any }>;
  enqueue(behaviour: FakeAnthropicBehaviour): void;
  close(): Promise<void>;
}

const encoder = new TextEncoder();

function event(name: string, data: unknown): Uint8Array {
  return encoder.encode(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
}

function usageOf(behaviour: FakeAnthropicBehaviour & { kind: "text" | "tool" }) {
  const text = behaviour.kind === "text" ? behaviour : null;
  return {
    input_tokens: text?.inputTokens ?? 25,
    cache_creation_input_tokens: (text?.cacheCreationTokens ?? 0) + (text?.cacheWrite1hTokens ?? 0),
    ...(text?.cacheWrite1hTokens === undefined
      ? {}
      : { cache_creation: { ephemeral_5m_input_tokens: text.cacheCreationTokens ?? 0, ephemeral_1h_input_tokens: text.cacheWrite1hTokens } }),
    cache_read_input_tokens: text?.cacheReadTokens ?? 0,
    output_tokens: text?.outputTokens ?? 12,
    ...(text?.searches ? { server_tool_use: { web_search_requests: text.searches } } : {}),
  };
}

/** The blocks of one web search, as Anthropic's web search tool answers (server_tool_use, then its result). */
function searchBlocks(index: number): [Record<string, unknown>, Record<string, unknown>] {
  const id = `srvtoolu_fake${index}`;
  return [
    { type: "server_tool_use", id, name: "web_search", input: { query: `search ${index + 1}` } },
    {
      type: "web_search_tool_result",
      tool_use_id: id,
      content: [{ type: "web_search_result", url: "https://example.com/", title: "Example", encrypted_content: "EqgfCio...", page_age: null }],
    },
  ];
}

function errorType(status: number): string {
  if (status === 400) return "invalid_request_error";
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status === 529) return "overloaded_error";
  return "api_error";
}

/** The models GET /v1/models lists by default, newest first, as Anthropic orders them. */
export const fakeAnthropicModels = ["claude-opus-4-1-20250805", "claude-sonnet-4-20250514", "claude-3-5-haiku-20241022"];

/**
 * GET /v1/models (https://docs.anthropic.com/en/api/models-list): `{data: [{type, id, display_name,
 * created_at}], has_more, first_id, last_id}`, `limit` (default 20, at most 1000; `modelsPerPage` caps it
 * lower, to exercise paging) and `after_id`.
 */
function modelsPage(url: URL, models: readonly string[], modelsPerPage: number): Response {
  const limit = Math.min(Number(url.searchParams.get("limit") ?? 20) || 20, 1000, modelsPerPage);
  const afterId = url.searchParams.get("after_id");
  const start = afterId === null ? 0 : models.indexOf(afterId) + 1;
  const data = models.slice(start, start + limit).map((id, index) => ({
    type: "model",
    id,
    display_name: id.replace(/-\d{8}$/, "").replaceAll("-", " "),
    created_at: new Date(Date.UTC(2025, 7, 5) - (start + index) * 86_400_000).toISOString(),
  }));
  return Response.json({ data, has_more: start + limit < models.length, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
}

export async function startFakeAnthropicUpstream(
  options: {
    requireApiKey?: string;
    models?: readonly string[];
    modelsPerPage?: number;
    /**
     * An Anthropic-compatible vendor's endpoint: the API is served under this path (e.g. "/api/anthropic",
     * as Zhipu's https://open.bigmodel.cn/api/anthropic/v1/messages), and anything else answers 404.
     */
    basePath?: string;
    /** A vendor that serves /v1/messages but not count_tokens: it answers this status there (404 or 405). */
    countTokensStatus?: 404 | 405;
  } = {},
): Promise<FakeAnthropicUpstream> {
  const queue: FakeAnthropicBehaviour[] = [];
  const requests: FakeAnthropicUpstream["requests"] = [];
  const server = startFakeServer({
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const body = await request.json().catch(() => null);
      requests.push({ path: url.pathname, headers: Object.fromEntries(request.headers), body });
      if (options.basePath !== undefined) {
        if (!url.pathname.startsWith(`${options.basePath}/`)) return Response.json({ error: { message: "Not Found" } }, { status: 404 });
        url.pathname = url.pathname.slice(options.basePath.length);
      }
      if (url.pathname === "/v1/messages/count_tokens" && options.countTokensStatus === 405) {
        return new Response("Method Not Allowed", { status: 405, headers: { allow: "OPTIONS" } });
      }
      if (url.pathname === "/v1/messages/count_tokens" && options.countTokensStatus === 404) {
        return Response.json({ type: "error", error: { type: "not_found_error", message: "Not found" } }, { status: 404 });
      }
      if (url.pathname === "/v1/messages/count_tokens" && request.method === "POST") {
        if (options.requireApiKey && request.headers.get("x-api-key") !== options.requireApiKey) {
          return Response.json({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }, { status: 401 });
        }
        const failure = queue[0]?.kind === "error" ? (queue.shift() as FakeAnthropicBehaviour & { kind: "error" }) : null;
        if (failure) {
          return Response.json(
            { type: "error", error: { type: failure.type ?? errorType(failure.status), message: failure.message ?? "Upstream error" } },
            { status: failure.status },
          );
        }
        if (typeof body?.model !== "string" || !Array.isArray(body?.messages)) {
          return Response.json({ type: "error", error: { type: "invalid_request_error", message: "messages: Field required" } }, { status: 400 });
        }
        return Response.json({ input_tokens: fakeInputTokens(body) });
      }
      if (url.pathname === "/v1/models" && request.method === "GET") {
        if (options.requireApiKey && request.headers.get("x-api-key") !== options.requireApiKey) {
          return Response.json({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }, { status: 401 });
        }
        if (!request.headers.get("anthropic-version")) {
          return Response.json({ type: "error", error: { type: "invalid_request_error", message: "anthropic-version: header is required" } }, { status: 400 });
        }
        const failure = queue[0]?.kind === "error" ? (queue.shift() as FakeAnthropicBehaviour & { kind: "error" }) : null;
        if (failure) {
          return Response.json({ type: "error", error: { type: failure.type ?? errorType(failure.status), message: failure.message ?? "Upstream error" } }, { status: failure.status });
        }
        return modelsPage(url, options.models ?? fakeAnthropicModels, options.modelsPerPage ?? 1000);
      }
      if (url.pathname !== "/v1/messages" || request.method !== "POST") {
        return Response.json({ type: "error", error: { type: "not_found_error", message: "Not found" } }, { status: 404 });
      }
      if (options.requireApiKey && request.headers.get("x-api-key") !== options.requireApiKey) {
        return Response.json({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }, { status: 401 });
      }
      const queued = queue.shift() ?? { kind: "text" };
      const behaviour = queued.kind === "json" ? answerForJson(queued.value, body) : queued;
      if (behaviour.kind === "error") {
        return Response.json(
          { type: "error", error: { type: behaviour.type ?? errorType(behaviour.status), message: behaviour.message ?? "Upstream error" } },
          { status: behaviour.status, headers: { "request-id": "req_fake" } },
        );
      }
      const id = `msg_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
      const usage = usageOf(behaviour);
      const text = behaviour.kind === "text" ? (behaviour.text ?? "Hello! How can I help you today?") : (behaviour.text ?? "");
      const content: Array<Record<string, unknown>> = [];
      const searches = behaviour.kind === "text" ? (behaviour.searches ?? 0) : 0;
      for (let search = 0; search < searches; search++) content.push(...searchBlocks(search));
      if (text) content.push({ type: "text", text });
      if (behaviour.kind === "tool") {
        content.push({ type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: behaviour.name, input: behaviour.input });
      }
      const stopReason = behaviour.kind === "tool" ? "tool_use" : "end_turn";
      if (body?.stream !== true) {
        return Response.json({
          id,
          type: "message",
          role: "assistant",
          model: body?.model,
          content,
          stop_reason: stopReason,
          stop_sequence: null,
          usage,
        });
      }
      const frames: Uint8Array[] = [
        event("message_start", {
          type: "message_start",
          message: {
            id,
            type: "message",
            role: "assistant",
            model: body?.model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { ...usage, output_tokens: 1 },
          },
        }),
      ];
      let index = 0;
      for (let search = 0; search < searches; search++) {
        const [use, result] = searchBlocks(search);
        frames.push(event("content_block_start", { type: "content_block_start", index, content_block: { ...use, input: {} } }));
        frames.push(event("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(use.input) } }));
        frames.push(event("content_block_stop", { type: "content_block_stop", index }));
        index++;
        frames.push(event("content_block_start", { type: "content_block_start", index, content_block: result }));
        frames.push(event("content_block_stop", { type: "content_block_stop", index }));
        index++;
      }
      if (text) {
        frames.push(event("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }));
        frames.push(event("ping", { type: "ping" }));
        for (const piece of text.match(/\S+\s*/g) ?? [text]) {
          frames.push(event("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } }));
        }
        frames.push(event("content_block_stop", { type: "content_block_stop", index }));
        index++;
      }
      if (behaviour.kind === "tool") {
        frames.push(
          event("content_block_start", {
            type: "content_block_start",
            index,
            content_block: { type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: behaviour.name, input: {} },
          }),
        );
        const json = JSON.stringify(behaviour.input);
        const middle = Math.floor(json.length / 2);
        for (const part of ["", json.slice(0, middle), json.slice(middle)]) {
          frames.push(event("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: part } }));
        }
        frames.push(event("content_block_stop", { type: "content_block_stop", index }));
      }
      frames.push(
        event("message_delta", {
          type: "message_delta",
          delta: { stop_reason: stopReason, stop_sequence: null },
          usage: { output_tokens: usage.output_tokens, ...(searches ? { server_tool_use: { web_search_requests: searches } } : {}) },
        }),
      );
      frames.push(event("message_stop", { type: "message_stop" }));
      return framesResponse(frames, "text/event-stream; charset=utf-8");
    },
  });
  return {
    url: server.origin,
    requests,
    enqueue: (behaviour) => queue.push(behaviour),
    close: () => server.close(),
  };
}
