import { TranslationError } from "../provider-adapter";
import { cleanJsonSchema, type SchemaBudget } from "./clean-json-schema";

/** OpenAI's reasoning_effort as thinking budgets, the mapping Google's own OpenAI-compatible endpoint uses. */
const THINKING_BUDGETS: Record<string, number> = { none: 0, minimal: 0, low: 1024, medium: 8192, high: 24576 };

function numberField(body: Record<string, unknown>, name: string): number | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) throw new TranslationError(`'${name}' must be a number.`, name);
  return value;
}

function stopSequences(stop: unknown): string[] | undefined {
  if (stop === undefined || stop === null) return undefined;
  if (typeof stop === "string") return [stop];
  if (Array.isArray(stop) && stop.every((entry) => typeof entry === "string")) return stop.length > 0 ? stop : undefined;
  throw new TranslationError("'stop' must be a string or an array of strings.", "stop");
}

/**
 * OpenAI `response_format` -> Gemini's JSON mode: `responseMimeType: "application/json"`, with the schema as
 * `responseSchema` (Gemini's OpenAPI subset, hence cleanJsonSchema) for json_schema; Gemini then answers
 * with the JSON as the candidate's text (https://ai.google.dev/gemini-api/docs/structured-output).
 */
function responseFormat(format: unknown, budget: SchemaBudget | undefined): Record<string, unknown> {
  if (format === undefined || format === null) return {};
  if (typeof format !== "object" || Array.isArray(format)) throw new TranslationError("'response_format' must be an object.", "response_format");
  const { type, json_schema: jsonSchema } = format as { type?: unknown; json_schema?: unknown };
  if (type === "text") return {};
  if (type === "json_object") return { responseMimeType: "application/json" };
  if (type === "json_schema") {
    if (typeof jsonSchema !== "object" || jsonSchema === null || Array.isArray(jsonSchema)) {
      throw new TranslationError("Missing required parameter: 'response_format.json_schema'.", "response_format.json_schema");
    }
    const { name, schema } = jsonSchema as { name?: unknown; schema?: unknown };
    if (typeof name !== "string" || name === "") {
      throw new TranslationError("Missing required parameter: 'response_format.json_schema.name'.", "response_format.json_schema.name");
    }
    if (schema !== undefined && (typeof schema !== "object" || schema === null || Array.isArray(schema))) {
      throw new TranslationError("'response_format.json_schema.schema' must be a JSON Schema object.", "response_format.json_schema.schema");
    }
    return { responseMimeType: "application/json", ...(schema ? { responseSchema: cleanJsonSchema(schema, "response_format", budget) } : {}) };
  }
  throw new TranslationError("'response_format.type' must be 'text', 'json_object' or 'json_schema'.", "response_format.type");
}

function thinkingConfig(body: Record<string, unknown>, includeThoughtsByDefault: boolean): Record<string, unknown> | undefined {
  const effort = body.reasoning_effort;
  if (effort === undefined || effort === null) return includeThoughtsByDefault ? { includeThoughts: true } : undefined;
  const budget = typeof effort === "string" ? THINKING_BUDGETS[effort] : undefined;
  if (budget === undefined) throw new TranslationError("reasoning_effort must be none, minimal, low, medium or high.", "reasoning_effort");
  return budget === 0 ? { thinkingBudget: 0 } : { thinkingBudget: budget, includeThoughts: true };
}

/**
 * OpenAI sampling fields -> Gemini `generationConfig`. Thought summaries are asked for when the client sets
 * `reasoning_effort` (they come back as `reasoning_content`), or on every call when the channel's config has
 * `includeThoughts: true`; not by default, because models without thinking answer 400 to a thinkingConfig.
 */
export function buildGenerationConfig(
  body: Record<string, unknown>,
  channelConfig: Record<string, unknown>,
  schemaBudget?: SchemaBudget,
): Record<string, unknown> | undefined {
  const config: Record<string, unknown> = {};
  const set = (name: string, value: unknown) => {
    if (value !== undefined) config[name] = value;
  };
  set("temperature", numberField(body, "temperature"));
  set("topP", numberField(body, "top_p"));
  set("topK", numberField(body, "top_k"));
  set("maxOutputTokens", numberField(body, "max_completion_tokens") ?? numberField(body, "max_tokens"));
  set("stopSequences", stopSequences(body.stop));
  set("candidateCount", numberField(body, "n"));
  set("presencePenalty", numberField(body, "presence_penalty"));
  set("frequencyPenalty", numberField(body, "frequency_penalty"));
  set("seed", numberField(body, "seed"));
  Object.assign(config, responseFormat(body.response_format, schemaBudget));
  set("thinkingConfig", thinkingConfig(body, channelConfig.includeThoughts === true));
  return Object.keys(config).length > 0 ? config : undefined;
}
