import type { ChatTranslationInput, UpstreamHttpRequest } from "../provider-adapter";
import { buildGenerationConfig } from "./build-generation-config";
import { translateMessages } from "./translate-messages";
import { translateTools } from "./translate-tools";
import { geminiHeaders, geminiUrl } from "./upstream-endpoint";

/**
 * OpenAI chat request -> `POST /v1beta/models/{model}:generateContent` (or `:streamGenerateContent?alt=sse`).
 * Fields Gemini has no use for (user, store, metadata, stream_options, parallel_tool_calls, logit_bias) are
 * left behind; `stream_options.include_usage` needs no counterpart because every Gemini stream carries usage.
 */
export function buildChatRequest(input: ChatTranslationInput): UpstreamHttpRequest {
  const { body, channel } = input;
  const { systemInstruction, contents } = translateMessages(body.messages);
  const { tools, toolConfig } = translateTools(body.tools, body.tool_choice);
  const generationConfig = buildGenerationConfig(body, channel.config);
  const upstreamBody = {
    contents,
    ...(systemInstruction ? { systemInstruction } : {}),
    ...(tools ? { tools } : {}),
    ...(toolConfig ? { toolConfig } : {}),
    ...(generationConfig ? { generationConfig } : {}),
  };
  return {
    url: geminiUrl(channel, input.upstreamModel, input.stream ? "streamGenerateContent" : "generateContent"),
    headers: geminiHeaders(channel),
    body: JSON.stringify(upstreamBody),
  };
}
