import { TranslationError } from "../provider-adapter";
import { MAX_SCHEMA_DEPTH, SCHEMA_NODE_BUDGET, SCHEMA_TEXT_BUDGET } from "../shared/schema-bounds";

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

/** The types a JSON Schema `type` list may hold besides "null". */
const JSON_TYPES = new Set<unknown>(["string", "number", "integer", "boolean", "object", "array"]);

/** Reference nesting past which `$ref`s are no longer inlined (recursive schemas). */
const MAX_REFERENCE_DEPTH = 8;

/**
 * Gemini takes no `$ref`, so a definition is inlined wherever it is used: eight definitions of ten properties
 * that each refer to the next make 10^8 nodes from 2 KB. Each definition is converted once and reused, and
 * the inlined size is counted as it grows, so such a schema costs a few hundred steps and a 400.
 *
 * The budget of one request's schemas: nodes and characters of text (descriptions, names, enum values)
 * counted so far, a reused definition counting its whole size (it is sent that many times, and a long
 * description inlined ten thousand times would be gigabytes). The tools and response_format of one request
 * share one, so that the request as a whole stays within SCHEMA_NODE_BUDGET and SCHEMA_TEXT_BUDGET.
 */
export class SchemaBudget {
  nodes = 0;
  characters = 0;
  /** The field being converted, named in the 400. */
  param = "schema";

  count(nodes: number, characters = 0): void {
    this.nodes += nodes;
    this.characters += characters;
    if (this.nodes > SCHEMA_NODE_BUDGET || this.characters > SCHEMA_TEXT_BUDGET) {
      throw new TranslationError(
        `'${this.param}' is too large for this model once its $refs are inlined: the request's schemas pass ${SCHEMA_NODE_BUDGET} nodes or ${SCHEMA_TEXT_BUDGET} characters of text (Gemini takes no $ref). Use fewer or smaller shared definitions.`,
        this.param,
      );
    }
  }
}

/** Characters of the strings in `values` (what they add to the converted schema's text). */
function textLength(values: readonly unknown[]): number {
  let characters = 0;
  for (const value of values) if (typeof value === "string") characters += value.length;
  return characters;
}

interface Walk {
  root: JsonObject;
  budget: SchemaBudget;
  /** Definitions of this root already converted, by reference depth and reference, with their size. */
  converted: Map<string, { schema: JsonObject; nodes: number; characters: number }>;
  /** The nesting of the node being converted. */
  depth: number;
  /** How many `$ref`s were followed to reach it. */
  references: number;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

function resolveReference(reference: string, root: JsonObject): JsonObject | undefined {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(reference);
  if (!match) return undefined;
  const definitions = root[match[1]!];
  if (!isObject(definitions)) return undefined;
  let name: string;
  try {
    name = decodeURIComponent(match[2]!);
  } catch {
    return undefined;
  }
  const key = name.replace(/~1/g, "/").replace(/~0/g, "~");
  const definition = Object.hasOwn(definitions, key) ? definitions[key] : undefined;
  return isObject(definition) ? definition : undefined;
}

/** `object[key] = value`, except that a property named `__proto__` stays a property and not the prototype. */
function setOwn(object: JsonObject, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

function isNullSchema(schema: unknown): boolean {
  return isObject(schema) && schema.type === "null";
}

function deeper(walk: Walk, references = walk.references): Walk {
  if (walk.depth + 1 > MAX_SCHEMA_DEPTH) {
    throw new TranslationError(`'${walk.budget.param}' nests deeper than ${MAX_SCHEMA_DEPTH} levels.`, walk.budget.param);
  }
  return { ...walk, depth: walk.depth + 1, references };
}

/** A `$ref`'s definition converted once per reference depth, then reused (its size counted at each use). */
function convertReference(reference: string, walk: Walk): JsonObject | undefined {
  if (walk.references >= MAX_REFERENCE_DEPTH) return undefined;
  const key = `${walk.references}\u0000${reference}`;
  const done = walk.converted.get(key);
  if (done) {
    walk.budget.count(done.nodes, done.characters);
    return done.schema;
  }
  const target = resolveReference(reference, walk.root);
  if (!target) return undefined;
  const nodesBefore = walk.budget.nodes;
  const charactersBefore = walk.budget.characters;
  const schema = convert(target, deeper(walk, walk.references + 1));
  walk.converted.set(key, { schema, nodes: walk.budget.nodes - nodesBefore, characters: walk.budget.characters - charactersBefore });
  return schema;
}

function convert(schema: unknown, walk: Walk): JsonObject {
  walk.budget.count(1);
  if (!isObject(schema)) return {};
  if (typeof schema.$ref === "string") {
    const { $ref: reference, ...siblings } = schema;
    const target = convertReference(reference as string, walk);
    if (!target) {
      const description = pickDescription(siblings);
      walk.budget.count(0, textLength(Object.values(description)));
      return { type: "object", ...description };
    }
    // Keywords beside the $ref (a description, most often) win over the definition's, as they did inlined.
    return Object.keys(siblings).length > 0 ? { ...target, ...convert(siblings, walk) } : target;
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    const { allOf, ...rest } = schema;
    const references = walk.references + 1;
    const parts = allOf.map((part) =>
      isObject(part) && typeof part.$ref === "string"
        ? references <= MAX_REFERENCE_DEPTH
          ? (resolveReference(part.$ref, walk.root) ?? {})
          : {}
        : part,
    );
    // A definition merged in counts as a reference followed, so an allOf that refers to itself ends.
    return convert(mergeAllOf(parts, rest, walk.budget), deeper(walk, references));
  }

  const result: JsonObject = {};
  for (const key of COPIED_KEYS) {
    const value = schema[key];
    if (!isScalar(value)) continue;
    result[key] = value;
    if (typeof value === "string") walk.budget.count(0, value.length);
  }
  if (Array.isArray(schema.propertyOrdering)) {
    walk.budget.count(schema.propertyOrdering.length, textLength(schema.propertyOrdering));
    result.propertyOrdering = schema.propertyOrdering.filter((name) => typeof name === "string");
  }

  let type = schema.type;
  if (Array.isArray(type)) {
    walk.budget.count(type.length);
    const nonNull = [...new Set(type.filter((entry) => JSON_TYPES.has(entry)))];
    if (type.includes("null")) result.nullable = true;
    if (nonNull.length > 1) {
      const inner = deeper(walk);
      result.anyOf = nonNull.map((entry) => convert({ ...schema, type: entry }, inner));
      return result;
    }
    type = nonNull[0];
  }
  if (typeof type === "string" && type !== "null") result.type = type;

  if (isScalar(schema.const)) {
    result.enum = [schema.const];
    walk.budget.count(1, textLength(result.enum as unknown[]));
  }
  if (Array.isArray(schema.enum)) {
    walk.budget.count(schema.enum.length, textLength(schema.enum));
    result.enum = schema.enum.filter(isScalar);
  }
  if (typeof schema.format === "string" && typeof type === "string" && SUPPORTED_FORMATS[type]?.includes(schema.format)) {
    result.format = schema.format;
  }

  if (isObject(schema.properties)) {
    const properties: JsonObject = {};
    const inner = deeper(walk);
    for (const [name, property] of Object.entries(schema.properties)) {
      walk.budget.count(0, name.length);
      setOwn(properties, name, convert(property, inner));
    }
    // Gemini answers 400 to `properties: {}` ("should be non-empty for OBJECT type").
    if (Object.keys(properties).length > 0) result.properties = properties;
    if (Array.isArray(schema.required) && result.properties) {
      walk.budget.count(schema.required.length, textLength(schema.required));
      result.required = schema.required.filter((name) => typeof name === "string" && Object.hasOwn(properties, name));
    }
  }
  if (schema.items !== undefined) {
    result.items = convert(Array.isArray(schema.items) ? schema.items[0] : schema.items, deeper(walk));
  }

  const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null;
  if (alternatives) {
    walk.budget.count(alternatives.length);
    const nonNull = alternatives.filter((alternative) => !isNullSchema(alternative));
    if (nonNull.length < alternatives.length) result.nullable = true;
    const inner = deeper(walk);
    if (nonNull.length === 1) Object.assign(result, convert(nonNull[0], inner));
    else if (nonNull.length > 1) result.anyOf = nonNull.map((alternative) => convert(alternative, inner));
  }
  return result;
}

function pickDescription(schema: JsonObject): JsonObject {
  return typeof schema.description === "string" ? { description: schema.description } : {};
}

/**
 * allOf of object schemas (what zod's .and() and pydantic's inheritance produce) -> one object schema. The
 * parts and properties merged are counted, as they are copied each time an allOf is met.
 */
function mergeAllOf(parts: unknown[], base: JsonObject, budget: SchemaBudget): JsonObject {
  budget.count(parts.length);
  const merged: JsonObject = { ...base };
  const properties: JsonObject = isObject(base.properties) ? { ...base.properties } : {};
  const required = new Set<unknown>(Array.isArray(base.required) ? base.required : []);
  for (const part of parts) {
    if (!isObject(part)) continue;
    for (const [key, value] of Object.entries(part)) {
      if (key === "properties" && isObject(value)) {
        const entries = Object.entries(value);
        budget.count(entries.length);
        for (const [name, property] of entries) setOwn(properties, name, property);
      } else if (key === "required" && Array.isArray(value)) {
        budget.count(value.length);
        for (const name of value) required.add(name);
      } else if (merged[key] === undefined) setOwn(merged, key, value);
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
 * into `nullable`, `oneOf` into `anyOf` and `const` into a one-value `enum`. Throws TranslationError (400
 * invalid_value naming the budget's param) past SCHEMA_NODE_BUDGET nodes or MAX_SCHEMA_DEPTH levels.
 */
export function cleanJsonSchema(schema: unknown, param = "schema", budget = new SchemaBudget()): JsonObject {
  if (!isObject(schema)) return {};
  budget.param = param;
  return convert(schema, { root: schema, budget, converted: new Map(), depth: 0, references: 0 });
}

/**
 * Function parameters: Gemini answers 400 ("properties: should be non-empty for OBJECT type") to an object
 * schema without properties, which is what OpenAI clients send for a function that takes no arguments, so
 * such a schema is left out.
 */
export function cleanParametersSchema(schema: unknown, param = "parameters", budget?: SchemaBudget): JsonObject | undefined {
  const cleaned = cleanJsonSchema(schema, param, budget);
  if (Object.keys(cleaned).length === 0) return undefined;
  const properties = cleaned.properties;
  if (cleaned.type === "object" && (!isObject(properties) || Object.keys(properties).length === 0)) return undefined;
  return cleaned;
}
