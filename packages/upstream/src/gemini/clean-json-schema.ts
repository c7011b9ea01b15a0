type JsonObject = Record<string, unknown>;

/** Keys of Gemini's Schema object (an OpenAPI 3.0 subset) that are copied as they are. */
const COPIED_KEYS = [
  "title",
  "description",
  "nullable",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "propertyOrdering",
] as const;

/** Gemini answers 400 to any other `format`. */
const SUPPORTED_FORMATS: Record<string, string[]> = {
  string: ["enum", "date-time"],
  integer: ["int32", "int64"],
  number: ["float", "double"],
};

/** Nesting depth past which `$ref`s are no longer inlined (recursive schemas). */
const MAX_REFERENCE_DEPTH = 8;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function resolveReference(reference: string, root: JsonObject): JsonObject | undefined {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(reference);
  if (!match) return undefined;
  const definitions = root[match[1]!];
  if (!isObject(definitions)) return undefined;
  const definition = definitions[decodeURIComponent(match[2]!).replace(/~1/g, "/").replace(/~0/g, "~")];
  return isObject(definition) ? definition : undefined;
}

function isNullSchema(schema: unknown): boolean {
  return isObject(schema) && schema.type === "null";
}

function convert(schema: unknown, root: JsonObject, depth: number): JsonObject {
  if (!isObject(schema)) return {};
  if (typeof schema.$ref === "string") {
    const target = depth < MAX_REFERENCE_DEPTH ? resolveReference(schema.$ref, root) : undefined;
    const { $ref: _reference, ...siblings } = schema;
    return target ? convert({ ...target, ...siblings }, root, depth + 1) : { type: "object", ...pickDescription(siblings) };
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    const { allOf, ...rest } = schema;
    const parts = allOf.map((part) =>
      isObject(part) && typeof part.$ref === "string" ? (resolveReference(part.$ref, root) ?? {}) : part,
    );
    return convert(mergeAllOf(parts, rest), root, depth + 1);
  }

  const result: JsonObject = {};
  for (const key of COPIED_KEYS) if (schema[key] !== undefined) result[key] = schema[key];

  let type = schema.type;
  if (Array.isArray(type)) {
    const nonNull = type.filter((entry) => entry !== "null");
    if (nonNull.length < type.length) result.nullable = true;
    if (nonNull.length > 1) {
      result.anyOf = nonNull.map((entry) => convert({ ...schema, type: entry }, root, depth));
      return result;
    }
    type = nonNull[0];
  }
  if (typeof type === "string" && type !== "null") result.type = type;

  if (schema.const !== undefined) result.enum = [schema.const];
  if (Array.isArray(schema.enum)) result.enum = schema.enum.filter((value) => value !== null);
  if (typeof schema.format === "string" && typeof type === "string" && SUPPORTED_FORMATS[type]?.includes(schema.format)) {
    result.format = schema.format;
  }

  if (isObject(schema.properties)) {
    const properties: JsonObject = {};
    for (const [name, property] of Object.entries(schema.properties)) properties[name] = convert(property, root, depth);
    // Gemini answers 400 to `properties: {}` ("should be non-empty for OBJECT type").
    if (Object.keys(properties).length > 0) result.properties = properties;
    if (Array.isArray(schema.required) && result.properties) {
      result.required = schema.required.filter((name) => typeof name === "string" && name in properties);
    }
  }
  if (schema.items !== undefined) {
    result.items = convert(Array.isArray(schema.items) ? schema.items[0] : schema.items, root, depth);
  }

  const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null;
  if (alternatives) {
    const nonNull = alternatives.filter((alternative) => !isNullSchema(alternative));
    if (nonNull.length < alternatives.length) result.nullable = true;
    if (nonNull.length === 1) Object.assign(result, convert(nonNull[0], root, depth));
    else if (nonNull.length > 1) result.anyOf = nonNull.map((alternative) => convert(alternative, root, depth));
  }
  return result;
}

function pickDescription(schema: JsonObject): JsonObject {
  return typeof schema.description === "string" ? { description: schema.description } : {};
}

/** allOf of object schemas (what zod's .and() and pydantic's inheritance produce) -> one object schema. */
function mergeAllOf(parts: unknown[], base: JsonObject): JsonObject {
  const merged: JsonObject = { ...base };
  const properties: JsonObject = isObject(base.properties) ? { ...base.properties } : {};
  const required = new Set<unknown>(Array.isArray(base.required) ? base.required : []);
  for (const part of parts) {
    if (!isObject(part)) continue;
    for (const [key, value] of Object.entries(part)) {
      if (key === "properties" && isObject(value)) Object.assign(properties, value);
      else if (key === "required" && Array.isArray(value)) for (const name of value) required.add(name);
      else if (merged[key] === undefined) merged[key] = value;
    }
  }
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.size > 0) merged.required = [...required];
  return merged;
}

/**
 * A JSON Schema (as OpenAI tools and response_format carry it) -> Gemini's Schema. Gemini rejects keys outside
 * its OpenAPI subset (`$schema`, `additionalProperties`, `strict`, `$defs`, `default`, unknown `format`s), so
 * this keeps an allow-list, inlines local `$ref`s, turns `type: [x, "null"]` and `anyOf [.., {type: null}]`
 * into `nullable`, `oneOf` into `anyOf` and `const` into a one-value `enum`.
 */
export function cleanJsonSchema(schema: unknown): JsonObject {
  return isObject(schema) ? convert(schema, schema, 0) : {};
}

/**
 * Function parameters: Gemini answers 400 ("properties: should be non-empty for OBJECT type") to an object
 * schema without properties, which is what OpenAI clients send for a function that takes no arguments, so
 * such a schema is left out.
 */
export function cleanParametersSchema(schema: unknown): JsonObject | undefined {
  const cleaned = cleanJsonSchema(schema);
  if (Object.keys(cleaned).length === 0) return undefined;
  const properties = cleaned.properties;
  if (cleaned.type === "object" && (!isObject(properties) || Object.keys(properties).length === 0)) return undefined;
  return cleaned;
}
