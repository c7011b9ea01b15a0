import { isRecord } from "@tollgate/shared";
import { TranslationError } from "@tollgate/upstream";
import { geminiSchemaToJsonSchema } from "./gemini-schema-to-json-schema";

const unsupported = (message: string, param: string) => new TranslationError(message, param, "unsupported_parameter");

/** generationConfig fields with an OpenAI chat field of the same meaning. */
const RENAMED: Record<string, string> = {
  temperature: "temperature",
  topP: "top_p",
  topK: "top_k",
  maxOutputTokens: "max_tokens",
  candidateCount: "n",
  presencePenalty: "presence_penalty",
  frequencyPenalty: "frequency_penalty",
  seed: "seed",
};

/** Fields read together below (structured output, thinking, modalities). */
const READ_BELOW = new Set(["stopSequences", "responseMimeType", "responseSchema", "responseJsonSchema", "thinkingConfig", "responseModalities", "responseLogprobs"]);

/** A thinking budget in tokens -> OpenAI's reasoning_effort, the reverse of the budgets Google's OpenAI-compatible endpoint uses. */
function effortOfBudget(budget: number): string {
  if (budget === 0) return "none";
  if (budget <= 1024) return "low";
  if (budget <= 8192) return "medium";
  return "high";
}

/**
 * thinkingConfig -> reasoning_effort: a thinkingLevel as it is, a thinkingBudget by the size it falls in; -1
 * (the model decides) and includeThoughts (thoughts come back as thought parts whenever the upstream returns
 * reasoning) ask for nothing more.
 */
function reasoningEffort(thinking: unknown): Record<string, unknown> {
  if (thinking === undefined || thinking === null) return {};
  if (!isRecord(thinking)) throw new TranslationError("'generationConfig.thinkingConfig' must be an object.", "generationConfig.thinkingConfig");
  const { thinkingLevel, thinkingBudget } = thinking;
  if (typeof thinkingLevel === "string" && thinkingLevel !== "THINKING_LEVEL_UNSPECIFIED") return { reasoning_effort: thinkingLevel.toLowerCase() };
  if (thinkingBudget === undefined || thinkingBudget === null || thinkingBudget === -1) return {};
  if (typeof thinkingBudget !== "number" || !Number.isInteger(thinkingBudget) || thinkingBudget < -1) {
    throw new TranslationError("'generationConfig.thinkingConfig.thinkingBudget' must be an integer, -1 or more.", "generationConfig.thinkingConfig.thinkingBudget");
  }
  return { reasoning_effort: effortOfBudget(thinkingBudget) };
}

/** responseMimeType + responseSchema or responseJsonSchema -> OpenAI's response_format. */
function responseFormat(config: Record<string, unknown>): Record<string, unknown> {
  const mimeType = config.responseMimeType;
  const schema = config.responseJsonSchema ?? config.responseSchema;
  if (mimeType === undefined || mimeType === null || mimeType === "text/plain") {
    if (schema !== undefined && schema !== null) throw new TranslationError("A response schema needs 'generationConfig.responseMimeType' application/json.", "generationConfig.responseMimeType");
    return {};
  }
  if (mimeType !== "application/json") throw unsupported(`'generationConfig.responseMimeType' ${String(mimeType)} can be sent to Gemini channels only.`, "generationConfig.responseMimeType");
  if (schema === undefined || schema === null) return { response_format: { type: "json_object" } };
  const jsonSchema =
    config.responseJsonSchema !== undefined && config.responseJsonSchema !== null
      ? config.responseJsonSchema
      : geminiSchemaToJsonSchema(config.responseSchema, "generationConfig.responseSchema");
  if (!isRecord(jsonSchema)) throw new TranslationError("'generationConfig.responseJsonSchema' must be a JSON Schema object.", "generationConfig.responseJsonSchema");
  return { response_format: { type: "json_schema", json_schema: { name: "response", schema: jsonSchema } } };
}

/**
 * generationConfig (https://ai.google.dev/api/generate-content#generationconfig) -> OpenAI chat fields:
 * sampling, limits, stop sequences, candidates, structured output and thinking. Text is the only output
 * modality other channels give; any other field (logprobs, speech, media resolution, ...) is refused.
 */
export function generationConfigToOpenAI(config: unknown): Record<string, unknown> {
  if (config === undefined || config === null) return {};
  if (!isRecord(config)) throw new TranslationError("'generationConfig' must be an object.", "generationConfig");
  const request: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    const renamed = RENAMED[key];
    if (renamed !== undefined) {
      if (typeof value !== "number" || !Number.isFinite(value)) throw new TranslationError(`'generationConfig.${key}' must be a number.`, `generationConfig.${key}`);
      request[renamed] = value;
    } else if (!READ_BELOW.has(key)) throw unsupported(`'generationConfig.${key}' can be sent to Gemini channels only.`, `generationConfig.${key}`);
  }
  const stop = config.stopSequences;
  if (stop !== undefined && stop !== null) {
    if (!Array.isArray(stop) || !stop.every((entry) => typeof entry === "string")) throw new TranslationError("'generationConfig.stopSequences' must be an array of strings.", "generationConfig.stopSequences");
    if (stop.length > 0) request.stop = stop;
  }
  const modalities = config.responseModalities;
  if (modalities !== undefined && modalities !== null) {
    if (!Array.isArray(modalities) || modalities.some((modality) => typeof modality !== "string" || modality.toUpperCase() !== "TEXT")) {
      throw unsupported("'generationConfig.responseModalities' other than TEXT can be sent to Gemini channels only.", "generationConfig.responseModalities");
    }
  }
  if (config.responseLogprobs === true) throw unsupported("'generationConfig.responseLogprobs' can be sent to Gemini channels only.", "generationConfig.responseLogprobs");
  return { ...request, ...responseFormat(config), ...reasoningEffort(config.thinkingConfig) };
}
