import type { ChatTranslationInput, UpstreamHttpRequest } from "../provider-adapter";
import { TranslationError } from "../provider-adapter";
import type { AnthropicMessagesRequest } from "./anthropic-wire-types";
import { refuseUncarriedParameters } from "../shared/chat-parameters";
import { applyCacheBreakpoints } from "./cache-breakpoints";
import { anthropicChatParameters } from "./chat-parameters";
import { applyStructuredOutput, structuredOutputOf } from "./structured-output";
import { translateMessages } from "./translate-messages";
import { translateToolChoice, translateTools } from "./translate-tools";
import { channelExtraHeaders } from "../shared/channel-headers";

export const anthropicVersion = "2023-06-01";

/** Anthropic requires max_tokens; OpenAI clients usually leave it out. */
export const defaultMaxTokens = 4096;

function stopSequencesOf(stop: unknown): string[] | undefined {
  if (stop === undefined || stop === null) return undefined;
  const list = typeof stop === "string" ? [stop] : stop;
  if (!Array.isArray(list) || list.some((item) => typeof item !== "string")) {
    throw new TranslationError("'stop' must be a string or an array of strings.", "stop");
  }
  const sequences = list.filter((item) => item !== "");
  return sequences.length > 0 ? sequences : undefined;
}

function maxTokensOf(body: Record<string, unknown>): number {
  for (const key of ["max_completion_tokens", "max_tokens"] as const) {
    const value = body[key];
    if (typeof value === "number" && Number.isInteger(value) && value > 0) return value;
  }
  return defaultMaxTokens;
}

/** OpenAI chat request body -> Anthropic Messages request body, for `model` (already mapped to the upstream id). */
export function toAnthropicRequestBody(
  body: Record<string, unknown>,
  model: string,
  stream: boolean,
  channelConfig: Record<string, unknown> = {},
): AnthropicMessagesRequest {
  refuseUncarriedParameters(body, anthropicChatParameters, "Anthropic's Messages API");
  const output = structuredOutputOf(body.response_format);
  const { system, messages } = translateMessages(body.messages);
  const request: AnthropicMessagesRequest = { model, max_tokens: maxTokensOf(body), ...(system !== undefined ? { system } : {}), messages };
  const tools = translateTools(body.tools);
  if (tools) {
    request.tools = tools;
    const toolChoice = translateToolChoice(body.tool_choice, body.parallel_tool_calls);
    if (toolChoice) request.tool_choice = toolChoice;
  }
  // OpenAI's temperature runs from 0 to 2, Anthropic's from 0 to 1. Current Claude models refuse temperature
  // and top_p together ("cannot both be specified for this model"), so temperature wins.
  if (typeof body.temperature === "number") request.temperature = Math.min(1, Math.max(0, body.temperature));
  else if (typeof body.top_p === "number") request.top_p = body.top_p;
  if (typeof body.top_k === "number") request.top_k = body.top_k;
  const stopSequences = stopSequencesOf(body.stop);
  if (stopSequences) request.stop_sequences = stopSequences;
  if (stream) request.stream = true;
  if (typeof body.user === "string" && body.user !== "") request.metadata = { user_id: body.user };
  // Before the structured-output tool is appended: an automatic breakpoint marks the client's own tools.
  applyCacheBreakpoints(request, channelConfig.autoCacheBreakpoints === true);
  if (output) applyStructuredOutput(request, output, channelConfig.structuredOutput);
  return request;
}

/** {baseUrl}/v1/{path}, tolerating a base URL configured with the version, as OpenAI-style base URLs are. */
export function anthropicApiUrl(baseUrl: string, path: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return base.endsWith("/v1") ? `${base}/${path}` : `${base}/v1/${path}`;
}

export function messagesUrl(baseUrl: string): string {
  return anthropicApiUrl(baseUrl, "messages");
}

/** POST {baseUrl}/v1/messages with the channel key; the channel's extra headers (e.g. anthropic-beta) go last and win. */
export function buildAnthropicRequest(input: ChatTranslationInput): UpstreamHttpRequest {
  return {
    url: messagesUrl(input.channel.baseUrl),
    headers: {
      "content-type": "application/json",
      "x-api-key": input.channel.apiKey,
      "anthropic-version": anthropicVersion,
      ...channelExtraHeaders(input.channel.config),
    },
    body: JSON.stringify(toAnthropicRequestBody(input.body, input.upstreamModel, input.stream, input.channel.config)),
  };
}
