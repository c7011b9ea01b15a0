import {
  type ChatParameterTable,
  ignored,
  ignoredByEveryTranslator,
  refusedAlways,
  refusedByEveryTranslator,
  refusedUnless,
  translatedByEveryTranslator,
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
  // The core every translator carries (Every ConverseStream ends with a metadata event that carries the
  // usage, so stream_options is honoured too), less top_k, which Converse has no field for (below).
  ...translatedByEveryTranslator,
  n: refusedUnless("1", (value) => value === 1),
  parallel_tool_calls: refusedUnless("true", (value) => value === true),
  top_k: refusedAlways,
  presence_penalty: refusedUnless("0", (value) => value === 0),
  frequency_penalty: refusedUnless("0", (value) => value === 0),
  seed: refusedAlways,
  reasoning_effort: refusedAlways,
  user: ignored,
};
