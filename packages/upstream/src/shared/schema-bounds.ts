import { MAX_JSON_DEPTH, measureJson } from "@tollgate/shared";
import { TranslationError } from "../provider-adapter";

/**
 * Largest schema the gateway converts or carries, in schema nodes (for a converter that inlines `$ref`s,
 * counted once inlined). Far above what a real tool or response schema holds; a 2 KB schema whose
 * definitions refer to each other would otherwise expand to 10^8 nodes.
 */
export const SCHEMA_NODE_BUDGET = 10_000;

/**
 * Most text (descriptions, property names, enum values) a converted schema may hold, in characters, once
 * its `$ref`s are inlined: a 1 MB description used by ten thousand properties would otherwise be sent ten
 * thousand times. Far above what real tools and response formats carry.
 */
export const SCHEMA_TEXT_BUDGET = 4 * 1024 * 1024;

/**
 * Nesting of a converted schema (inlined definitions included) past which it is refused: deeper than any
 * real schema, and a bound on the converter's recursion whatever the definitions refer to.
 */
export const MAX_SCHEMA_DEPTH = 64;

/**
 * A schema that is carried as the client sent it (Anthropic's input_schema and output_config take JSON
 * Schema with `$ref`s, so nothing is inlined): refused with 400 invalid_value naming `param` when it
 * nests deeper than MAX_JSON_DEPTH or holds more than SCHEMA_NODE_BUDGET objects and arrays.
 */
export function checkCarriedSchema(schema: unknown, param: string): void {
  const problem = measureJson(schema, MAX_JSON_DEPTH, SCHEMA_NODE_BUDGET);
  if (problem === "depth") throw new TranslationError(`'${param}' nests deeper than ${MAX_JSON_DEPTH} levels.`, param);
  if (problem === "nodes") throw new TranslationError(`'${param}' holds more than ${SCHEMA_NODE_BUDGET} objects and arrays.`, param);
}
