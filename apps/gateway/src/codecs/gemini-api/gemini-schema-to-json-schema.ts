import { isRecord } from "@tollgate/shared";
import { TranslationError } from "@tollgate/upstream";

/** Keys of Google's Schema (an OpenAPI 3.0 subset) that mean the same in JSON Schema. */
const SAME_MEANING = new Set([
  "format",
  "title",
  "description",
  "enum",
  "maxItems",
  "minItems",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "default",
  "minimum",
  "maximum",
]);

/**
 * Google's Schema (https://ai.google.dev/api/caching#Schema: `type` in capitals, `nullable`, `anyOf`,
 * `propertyOrdering`) -> the JSON Schema OpenAI's tools and response_format take. `propertyOrdering` and
 * `example` are hints to Gemini's decoder with no JSON Schema meaning; a key Google's Schema does not have is
 * refused, naming where it was. The body's nesting is bounded by admission, so the recursion is too.
 */
export function geminiSchemaToJsonSchema(schema: unknown, path: string): Record<string, unknown> {
  if (!isRecord(schema)) throw new TranslationError(`'${path}' must be a Schema object.`, path);
  const converted: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SAME_MEANING.has(key)) converted[key] = value;
    else if (key === "type") {
      if (typeof value !== "string") throw new TranslationError(`'${path}.type' must be a string.`, `${path}.type`);
      if (value.toUpperCase() !== "TYPE_UNSPECIFIED") converted.type = value.toLowerCase();
    } else if (key === "properties") {
      if (!isRecord(value)) throw new TranslationError(`'${path}.properties' must be an object.`, `${path}.properties`);
      converted.properties = Object.fromEntries(
        Object.entries(value).map(([name, property]) => [name, geminiSchemaToJsonSchema(property, `${path}.properties.${name}`)]),
      );
    } else if (key === "items") converted.items = geminiSchemaToJsonSchema(value, `${path}.items`);
    else if (key === "anyOf") {
      if (!Array.isArray(value)) throw new TranslationError(`'${path}.anyOf' must be an array.`, `${path}.anyOf`);
      converted.anyOf = value.map((entry, index) => geminiSchemaToJsonSchema(entry, `${path}.anyOf[${index}]`));
    } else if (key === "nullable" || key === "propertyOrdering" || key === "example") continue;
    else throw new TranslationError(`'${path}.${key}' is not a field of Google's Schema.`, `${path}.${key}`, "unsupported_parameter");
  }
  if (schema.nullable === true) {
    if (typeof converted.type === "string") converted.type = [converted.type, "null"];
    else if (Array.isArray(converted.anyOf)) converted.anyOf = [...converted.anyOf, { type: "null" }];
  }
  return converted;
}
