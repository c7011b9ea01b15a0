import { describe, expect, test } from "bun:test";
import { cleanJsonSchema, cleanParametersSchema } from "./clean-json-schema";

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
});
