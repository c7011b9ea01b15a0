import {
  type ChatParameterTable,
  ignored,
  ignoredByEveryTranslator,
  refusedByEveryTranslator,
  refusedUnless,
  translated,
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
  model: translated,
  messages: translated,
  max_tokens: translated,
  max_completion_tokens: translated,
  temperature: translated,
  top_p: translated,
  top_k: translated,
  stop: translated,
  stream: translated,
  stream_options: translated,
  tools: translated,
  tool_choice: translated,
  response_format: translated,
  n: translated,
  presence_penalty: translated,
  frequency_penalty: translated,
  seed: translated,
  reasoning_effort: translated,
  parallel_tool_calls: refusedUnless("true", (value) => value === true),
  user: ignored,
};
