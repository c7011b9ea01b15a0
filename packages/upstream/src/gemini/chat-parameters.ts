import {
  type ChatParameterTable,
  ignored,
  ignoredByEveryTranslator,
  refusedByEveryTranslator,
  refusedUnless,
  translated,
  translatedByEveryTranslator,
} from "../shared/chat-parameters";

/**
 * Every OpenAI chat parameter and what the Gemini adapter does with it (the README's table follows it).
 * Gemini's generateContent (https://ai.google.dev/api/generate-content) has candidateCount, penalties,
 * seed and thinking budgets, but no logit bias, no switch to forbid parallel function calls, and log
 * probabilities in a shape of its own that the adapter does not translate back.
 */
export const geminiChatParameters: ChatParameterTable = {
  ...refusedByEveryTranslator,
  ...ignoredByEveryTranslator,
  ...translatedByEveryTranslator,
  n: translated,
  presence_penalty: translated,
  frequency_penalty: translated,
  seed: translated,
  reasoning_effort: translated,
  parallel_tool_calls: refusedUnless("true", (value) => value === true),
  user: ignored,
};
