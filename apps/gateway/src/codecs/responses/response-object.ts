import { isRecord, type TokenUsage } from "@tollgate/shared";

/** A new output id in OpenAI's style: a prefix and 48 hex digits (`resp_`, `msg_`, `fc_`). */
export function outputId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `${prefix}_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

/** What a Response object repeats of its request, and its identity. */
export interface ResponseFrame {
  id: string;
  /** Unix seconds. */
  createdAt: number;
  /** The model the client asked for. */
  model: string;
  body: Record<string, unknown>;
  store: boolean;
}

export type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed";

/** Usage in the Responses shape; reasoning tokens when the upstream reported them. */
export function responsesUsage(usage: TokenUsage, reasoningTokens = 0): Record<string, unknown> {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedTokens },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

/** Reasoning tokens in a chat usage object (`completion_tokens_details.reasoning_tokens`), 0 when absent. */
export function chatReasoningTokens(usage: unknown): number {
  if (!isRecord(usage) || !isRecord(usage.completion_tokens_details)) return 0;
  const tokens = usage.completion_tokens_details.reasoning_tokens;
  return typeof tokens === "number" ? tokens : 0;
}

/** A chat finish_reason -> the Response's status and incomplete_details. */
export function statusOfFinish(finishReason: unknown): { status: ResponseStatus; incompleteDetails: Record<string, unknown> | null } {
  if (finishReason === "length") return { status: "incomplete", incompleteDetails: { reason: "max_output_tokens" } };
  if (finishReason === "content_filter") return { status: "incomplete", incompleteDetails: { reason: "content_filter" } };
  return { status: "completed", incompleteDetails: null };
}

/** The Response object (OpenAI, "The response object"), its request fields echoed with OpenAI's defaults. */
export function responseObject(
  frame: ResponseFrame,
  state: {
    status: ResponseStatus;
    output: unknown[];
    usage: Record<string, unknown> | null;
    incompleteDetails?: Record<string, unknown> | null;
    error?: Record<string, unknown> | null;
  },
): Record<string, unknown> {
  const { body } = frame;
  const reasoning = isRecord(body.reasoning) ? body.reasoning : {};
  const text = isRecord(body.text) ? body.text : {};
  return {
    id: frame.id,
    object: "response",
    created_at: frame.createdAt,
    status: state.status,
    error: state.error ?? null,
    incomplete_details: state.incompleteDetails ?? null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: frame.model,
    output: state.output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null },
    store: frame.store,
    temperature: body.temperature ?? 1,
    text: { format: text.format ?? { type: "text" }, ...(text.verbosity !== undefined ? { verbosity: text.verbosity } : {}) },
    tool_choice: body.tool_choice ?? "auto",
    tools: Array.isArray(body.tools) ? body.tools : [],
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? "disabled",
    usage: state.usage,
    user: body.user ?? null,
    metadata: isRecord(body.metadata) ? body.metadata : {},
  };
}

/**
 * The Response once its chat has finished: completed, or incomplete for a `length` or `content_filter`
 * finish_reason; `usage` is the billed usage, with the reasoning tokens the upstream reported.
 */
export function finalResponse(frame: ResponseFrame, output: unknown[], finishReason: unknown, usage: TokenUsage, reasoningTokens: number): Record<string, unknown> {
  const { status, incompleteDetails } = statusOfFinish(finishReason);
  return responseObject(frame, { status, output, incompleteDetails, usage: responsesUsage(usage, reasoningTokens) });
}

export function messageItem(id: string, text: string, status: "in_progress" | "completed"): Record<string, unknown> {
  return {
    id,
    type: "message",
    status,
    role: "assistant",
    content: status === "in_progress" && text === "" ? [] : [outputTextPart(text)],
  };
}

export function outputTextPart(text: string): Record<string, unknown> {
  return { type: "output_text", text, annotations: [], logprobs: [] };
}

export function functionCallItem(
  id: string,
  call: { callId: string; name: string; arguments: string },
  status: "in_progress" | "completed",
): Record<string, unknown> {
  return { id, type: "function_call", status, call_id: call.callId, name: call.name, arguments: call.arguments };
}

/**
 * A channel's reasoning text (`reasoning_content` or `reasoning` in chat) as a reasoning item with one
 * summary part: the shape Responses clients display reasoning from.
 */
export function reasoningItem(id: string, text: string): Record<string, unknown> {
  return { id, type: "reasoning", summary: text === "" ? [] : [{ type: "summary_text", text }] };
}

/** The reasoning text of a chat message or delta, "" when none. */
export function chatReasoningText(message: Record<string, unknown>): string {
  if (typeof message.reasoning_content === "string") return message.reasoning_content;
  if (typeof message.reasoning === "string") return message.reasoning;
  return "";
}
