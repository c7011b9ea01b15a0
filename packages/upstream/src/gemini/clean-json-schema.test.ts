import { describe, expect, test } from "bun:test";
import { TranslationError } from "../provider-adapter";
import { SCHEMA_NODE_BUDGET } from "../shared/schema-bounds";
import { cleanJsonSchema, cleanParametersSchema, SchemaBudget } from "./clean-json-schema";

/** `count` definitions of `width` properties, each property referring to the next definition. */
function chained(count: number, width = 10): Record<string, unknown> {
  const $defs: Record<string, unknown> = {};
  for (let index = 0; index < count; index++) {
    const properties: Record<string, unknown> = {};
    for (let property = 0; property < width; property++) properties[`p${property}`] = index < count - 1 ? { $ref: `#/$defs/d${index + 1}` } : { type: "string" };
    $defs[`d${index}`] = { type: "object", properties };
  }
  return { $ref: "#/$defs/d0", $defs };
}

describe("cleanJsonSchema", () => {
  test("keeps Gemini's subset and drops what it rejects", () => {
    expect(
      cleanJsonSchema({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        title: "Order",
        properties: {
          id: { type: "string", format: "uuid", minLength: 1, default: "x", examples: ["a"] },
          count: { type: "integer", format: "int32", minimum: 1, exclusiveMaximum: 10 },
          kind: { const: "order" },
        },
        additionalProperties: false,
        strict: true,
      }),
    ).toEqual({
      title: "Order",
      type: "object",
      properties: {
        id: { type: "string", minLength: 1 },
        count: { type: "integer", format: "int32", minimum: 1 },
        kind: { enum: ["order"] },
      },
    });
  });

  test("oneOf becomes anyOf, several types become anyOf, allOf objects merge", () => {
    expect(cleanJsonSchema({ oneOf: [{ type: "string" }, { type: "number" }] })).toEqual({
      anyOf: [{ type: "string" }, { type: "number" }],
    });
    expect(cleanJsonSchema({ type: ["string", "number", "null"] })).toEqual({
      nullable: true,
      anyOf: [{ type: "string" }, { type: "number" }],
    });
    expect(
      cleanJsonSchema({
        allOf: [
          { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
          { properties: { b: { type: "boolean" } }, required: ["b"] },
        ],
      }),
    ).toEqual({ type: "object", properties: { a: { type: "string" }, b: { type: "boolean" } }, required: ["a", "b"] });
  });

  test("a recursive $ref is inlined a few levels deep and then cut off", () => {
    const schema = {
      $ref: "#/definitions/node",
      definitions: { node: { type: "object", properties: { child: { $ref: "#/definitions/node" } } } },
    };
    let depth = 0;
    let current = cleanJsonSchema(schema) as { type?: string; properties?: { child?: unknown } };
    while (current.properties?.child) {
      depth++;
      current = current.properties.child as typeof current;
    }
    expect(depth).toBeGreaterThan(3);
    expect(current).toEqual({ type: "object" });
  });

  test("parameters of a function without arguments are left out", () => {
    expect(cleanParametersSchema({ type: "object", properties: {}, additionalProperties: false })).toBeUndefined();
    expect(cleanParametersSchema(undefined)).toBeUndefined();
  });

  test("eight definitions that each use the next ten times (10^8 nodes inlined) are refused after about the budget's steps", () => {
    const budget = new SchemaBudget();
    let error: unknown;
    try {
      cleanJsonSchema(chained(8), "response_format", budget);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TranslationError);
    expect(error).toMatchObject({ param: "response_format", code: "invalid_value" });
    expect(budget.nodes).toBeLessThan(SCHEMA_NODE_BUDGET * 2);
  });

  test("a definition used many times is converted once: its uses share the converted schema and count its size", () => {
    const budget = new SchemaBudget();
    const converted = cleanJsonSchema(chained(3), "response_format", budget) as { properties: Record<string, { properties: Record<string, unknown> }> };
    expect(converted.properties.p0).toBe(converted.properties.p9!);
    expect(converted.properties.p0!.properties.p0).toEqual({ type: "object", properties: expect.any(Object) });
    // At least what is sent once inlined (d0, 10 uses of d1, 100 of d2 and their 1,000 strings), and
    // the $ref nodes that led there: not a multiple of it.
    expect(budget.nodes).toBeGreaterThanOrEqual(1 + 10 + 100 + 1_000);
    expect(budget.nodes).toBeLessThan(2 * (1 + 10 + 100 + 1_000));
  });

  test("schemas of one request share the budget: two that fit alone may not fit together", () => {
    const budget = new SchemaBudget();
    // About 5,300 nodes inlined: within the budget once, not twice.
    const schema = chained(4, 8);
    cleanJsonSchema(schema, "tools[0].function.parameters", budget);
    expect(() => cleanJsonSchema(schema, "response_format", budget)).toThrow("'response_format'");
  });

  test("a property named __proto__ stays a property, and keywords that are not scalars are left out", () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"],"description":{"deep":[1]},"enum":[{"a":1},"x"]}');
    const converted = cleanJsonSchema(schema);
    expect(Object.keys(converted.properties as object)).toEqual(["__proto__"]);
    expect(converted.required).toEqual(["__proto__"]);
    expect(converted.description).toBeUndefined();
    expect(converted.enum).toEqual(["x"]);
  });

  test("a long description in a definition used thousands of times is refused for its inlined text", () => {
    const properties = Object.fromEntries(Array.from({ length: 3_000 }, (_, index) => [`p${index}`, { $ref: "#/$defs/long" }]));
    const schema = { type: "object", properties, $defs: { long: { type: "string", description: "x".repeat(10_000) } } };
    // 3,000 uses of 10,000 characters: 30 million characters, from a 70 KB schema.
    expect(() => cleanJsonSchema(schema, "response_format")).toThrow("'response_format' is too large");
    // The same definition used a few times is inlined as before.
    const few = { type: "object", properties: { a: { $ref: "#/$defs/long" }, b: { $ref: "#/$defs/long" } }, $defs: schema.$defs };
    expect((cleanJsonSchema(few).properties as Record<string, { description: string }>).b!.description).toHaveLength(10_000);
  });
});
