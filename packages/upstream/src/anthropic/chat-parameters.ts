import {
  type ChatParameterTable,
  ignoredByEveryTranslator,
  refusedAlways,
  refusedByEveryTranslator,
  refusedUnless,
  translated,
  translatedByEveryTranslator,
} from "../shared/chat-parameters";

/**
 * Every OpenAI chat parameter and what the Anthropic adapter does with it (the README's table follows it).
 * Anthropic's Messages API (https://docs.anthropic.com/en/api/messages) has no choices, log probabilities,
 * penalties, seed or audio; `reasoning_effort` would need a thinking budget that also changes the
 * temperature and tool_choice rules, so it is refused rather than half-translated.
 */
export const anthropicChatParameters: ChatParameterTable = {
  ...refusedByEveryTranslator,
  ...ignoredByEveryTranslator,
  ...translatedByEveryTranslator,
  parallel_tool_calls: translated,
  user: translated,
  n: refusedUnless("1", (value) => value === 1),
  presence_penalty: refusedUnless("0", (value) => value === 0),
  frequency_penalty: refusedUnless("0", (value) => value === 0),
  seed: refusedAlways,
  reasoning_effort: refusedUnless("'none'", (value) => value === "none"),
};
