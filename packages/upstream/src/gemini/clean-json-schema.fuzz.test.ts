import { describe, expect, test } from "bun:test";
import { forEachCase, outcomeOf } from "@tollgate/shared/fuzz-support";
import { TranslationError } from "../provider-adapter";
import { randomSchema } from "../shared/chat-fuzz-support";
import { SCHEMA_NODE_BUDGET } from "../shared/schema-bounds";
import { cleanJsonSchema, SchemaBudget } from "./clean-json-schema";

function countNodes(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  let nodes = 1;
  for (const child of Object.values(value)) nodes += countNodes(child);
  return nodes;
}

describe("cleanJsonSchema under fuzzing", () => {
  test("1,500 random schemas with $defs referring to each other either convert within the budget or are a TranslationError", () => {
    const outcomes = { ok: 0, refused: 0 };
    forEachCase(1_500, 1, (fuzz) => {
      const schema = fuzz.chance(0.7) ? randomSchema(fuzz) : fuzz.mutate(randomSchema(fuzz));
      const budget = new SchemaBudget();
      let converted: unknown;
      const outcome = outcomeOf(
        () => (converted = cleanJsonSchema(schema, "response_format", budget)),
        (error) => error instanceof TranslationError && error.param === "response_format" && error.code === "invalid_value",
      );
      outcomes[outcome]++;
      if (outcome === "ok") {
        // What is sent is JSON without a $ref, within the budget counted: each schema node counted brings at
        // most its properties, required, enum, anyOf and propertyOrdering containers.
        const text = JSON.stringify(converted);
        expect(text).not.toContain('"$ref"');
        expect(countNodes(converted)).toBeLessThanOrEqual(6 * budget.nodes + 1);
        expect(budget.nodes).toBeLessThanOrEqual(SCHEMA_NODE_BUDGET);
      }
    });
    // Both ends are reached: most schemas convert, and the generator finds the budget too.
    expect(outcomes.ok).toBeGreaterThan(750);
    expect(outcomes.refused).toBeGreaterThan(10);
  });

  test("a definition used by every property of the one before it, twenty deep, ends at the budget in few steps", () => {
    const definitions: Record<string, unknown> = {};
    for (let index = 0; index < 20; index++) {
      const properties: Record<string, unknown> = {};
      for (let property = 0; property < 50; property++) properties[`p${property}`] = { $ref: `#/$defs/d${index + 1}` };
      definitions[`d${index}`] = { type: "object", properties };
    }
    definitions.d20 = { type: "string" };
    const budget = new SchemaBudget();
    expect(() => cleanJsonSchema({ $ref: "#/$defs/d0", $defs: definitions }, "response_format", budget)).toThrow(TranslationError);
    expect(budget.nodes).toBeLessThan(SCHEMA_NODE_BUDGET + 1_000);
  });

  test("allOf that merges its own definition, and type lists of every type at each level, end", () => {
    const selfMerging = { $ref: "#/$defs/a", $defs: { a: { allOf: [{ $ref: "#/$defs/a" }, { properties: { x: { $ref: "#/$defs/a" } } }] } } };
    expect(() => cleanJsonSchema(selfMerging)).not.toThrow();
    let wide: Record<string, unknown> = { type: "string" };
    for (let level = 0; level < 30; level++) wide = { type: ["object", "array", "string", "number", "integer", "boolean", "null"], properties: { a: wide }, items: wide };
    expect(() => cleanJsonSchema(wide)).toThrow(TranslationError);
  });
});
