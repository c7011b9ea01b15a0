import type { ChatTranslationInput, UpstreamHttpRequest } from "../provider-adapter";
import { refuseUncarriedParameters } from "../shared/chat-parameters";
import { buildGenerationConfig } from "./build-generation-config";
import { SchemaBudget } from "./clean-json-schema";
import { geminiChatParameters } from "./chat-parameters";
import { translateMessages } from "./translate-messages";
import { translateTools } from "./translate-tools";
import { geminiHeaders, geminiUrl } from "./upstream-endpoint";

/**
 * OpenAI chat request -> `POST /v1beta/models/{model}:generateContent` (or `:streamGenerateContent?alt=sse`).
 * Parameters Gemini cannot carry are refused (chat-parameters.ts); bookkeeping ones (user, store, metadata)
 * are left behind; `stream_options.include_usage` needs no counterpart because every Gemini stream carries usage.
 */
export function buildChatRequest(input: ChatTranslationInput): UpstreamHttpRequest {
  const { body, channel } = input;
  refuseUncarriedParameters(body, geminiChatParameters, "Gemini's generateContent API");
  const { systemInstruction, contents } = translateMessages(body.messages);
  // One node budget for every schema of the request (tool parameters and response_format).
  const schemaBudget = new SchemaBudget();
  const { tools, toolConfig } = translateTools(body.tools, body.tool_choice, schemaBudget);
  const generationConfig = buildGenerationConfig(body, channel.config, schemaBudget);
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
