import {
  type ChatParameterTable,
  ignored,
  ignoredByEveryTranslator,
  refusedAlways,
  refusedByEveryTranslator,
  refusedUnless,
  translated,
} from "../shared/chat-parameters";

/**
 * Every OpenAI chat parameter and what the Bedrock adapter does with it on Converse
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html): inferenceConfig has
 * maxTokens, temperature, topP and stopSequences only; the rest would need a model family's own
 * additionalModelRequestFields, so they are refused rather than dropped.
 */
export const bedrockChatParameters: ChatParameterTable = {
  ...refusedByEveryTranslator,
  ...ignoredByEveryTranslator,
  model: translated,
  messages: translated,
  max_tokens: translated,
  max_completion_tokens: translated,
  temperature: translated,
  top_p: translated,
  stop: translated,
  stream: translated,
  // Every ConverseStream ends with a metadata event that carries the usage.
  stream_options: translated,
  tools: translated,
  tool_choice: translated,
  response_format: translated,
  n: refusedUnless("1", (value) => value === 1),
  parallel_tool_calls: refusedUnless("true", (value) => value === true),
  top_k: refusedAlways,
  presence_penalty: refusedUnless("0", (value) => value === 0),
  frequency_penalty: refusedUnless("0", (value) => value === 0),
  seed: refusedAlways,
  reasoning_effort: refusedAlways,
  user: ignored,
};
