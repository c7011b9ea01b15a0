import { defineOwn, type Fuzz } from "@tollgate/shared/fuzz-support";

/**
 * Test support for the translators' fuzz tests (imported by tests only): random OpenAI chat requests and
 * JSON Schemas, well-formed often enough to reach deep into a translator, malformed often enough to reach
 * every refusal.
 */

const SCHEMA_TYPES = ["object", "array", "string", "number", "integer", "boolean", "null", "date", 7];

/**
 * A JSON Schema with `definitions` $defs whose properties refer to each other at random (cycles, self
 * references, chains of many uses), with allOf/anyOf/oneOf, type lists, enums and consts mixed in.
 */
export function randomSchema(fuzz: Fuzz, definitions = fuzz.int(6)): Record<string, unknown> {
  const names = Array.from({ length: definitions }, (_, index) => (fuzz.chance(0.1) ? fuzz.string(6) : `d${index}`));
  const node = (depth: number): Record<string, unknown> => {
    const roll = fuzz.int(10);
    if (names.length > 0 && (roll < 3 || depth <= 0)) {
      const reference: Record<string, unknown> = { $ref: fuzz.chance(0.9) ? `#/$defs/${fuzz.pick(names)}` : fuzz.pick(["#/definitions/x", "#", "http://x/y", "#/$defs/"]) };
      if (fuzz.chance(0.2)) reference.description = fuzz.string();
      return reference;
    }
    if (depth <= 0) return { type: fuzz.pick(SCHEMA_TYPES) };
    const schema: Record<string, unknown> = {};
    if (fuzz.chance(0.8)) schema.type = fuzz.chance(0.15) ? [fuzz.pick(SCHEMA_TYPES), fuzz.pick(SCHEMA_TYPES), "null"] : fuzz.pick(SCHEMA_TYPES);
    if (fuzz.chance(0.6)) {
      const properties: Record<string, unknown> = {};
      const count = fuzz.int(9);
      for (let index = 0; index < count; index++) defineOwn(properties, fuzz.chance(0.8) ? `p${index}` : fuzz.string(6), node(depth - 1));
      schema.properties = properties;
      if (fuzz.chance(0.5)) schema.required = Object.keys(properties).filter(() => fuzz.chance(0.5));
    }
    if (fuzz.chance(0.2)) schema.items = node(depth - 1);
    if (fuzz.chance(0.15)) schema[fuzz.pick(["anyOf", "oneOf", "allOf"])] = Array.from({ length: fuzz.int(4) }, () => (fuzz.chance(0.2) ? { type: "null" } : node(depth - 1)));
    if (fuzz.chance(0.1)) schema.enum = Array.from({ length: fuzz.int(5) }, () => fuzz.json(1));
    if (fuzz.chance(0.05)) schema.const = fuzz.json(1);
    if (fuzz.chance(0.1)) schema.format = fuzz.pick(["date-time", "uuid", "int32", "float", 3]);
    if (fuzz.chance(0.1)) schema.description = fuzz.chance(0.8) ? fuzz.string() : fuzz.json(2);
    if (fuzz.chance(0.05)) schema.additionalProperties = fuzz.chance(0.5) ? false : node(depth - 1);
    return schema;
  };
  const root = node(3);
  if (names.length > 0) {
    const defs: Record<string, unknown> = {};
    for (const name of names) defineOwn(defs, name, node(2));
    root[fuzz.chance(0.85) ? "$defs" : "definitions"] = defs;
  }
  return root;
}

function randomContentPart(fuzz: Fuzz): unknown {
  switch (fuzz.int(8)) {
    case 0:
    case 1:
      return { type: "text", text: fuzz.string(), ...(fuzz.chance(0.1) ? { cache_control: { type: "ephemeral" } } : {}) };
    case 2:
      return {
        type: "image_url",
        image_url: fuzz.chance(0.7)
          ? { url: fuzz.pick(["data:image/png;base64,iVBORw0KGgo=", "https://example.com/a.png", "data:;base64,", "gs://b/c.jpg", "ftp://x", fuzz.string()]) }
          : fuzz.json(1),
      };
    case 3:
      return { type: "input_audio", input_audio: fuzz.chance(0.7) ? { data: "UklGRg==", format: fuzz.pick(["wav", "mp3", 3]) } : fuzz.json(1) };
    case 4:
      return { type: "file", file: fuzz.chance(0.7) ? { file_data: fuzz.pick(["data:application/pdf;base64,JVBERi0=", "data:text/plain,%E0%A4%A", "x"]), filename: fuzz.string() } : fuzz.json(1) };
    case 5:
      return { type: "refusal", refusal: fuzz.string() };
    case 6:
      return { type: fuzz.string(6), text: fuzz.string() };
    default:
      return fuzz.json(2);
  }
}

function randomContent(fuzz: Fuzz): unknown {
  const roll = fuzz.int(5);
  if (roll === 0) return fuzz.string(40);
  if (roll === 1) return null;
  if (roll === 2) return fuzz.json(1);
  return Array.from({ length: fuzz.int(5) }, () => randomContentPart(fuzz));
}

function randomToolCall(fuzz: Fuzz, index: number): unknown {
  if (fuzz.chance(0.1)) return fuzz.json(2);
  const argumentsText = fuzz.pick([JSON.stringify(fuzz.json(3)), "{}", "", "{", "[1]", '{"a":1}', null]);
  return {
    id: fuzz.chance(0.9) ? `call_${index}` : fuzz.json(1),
    type: "function",
    function: { name: fuzz.chance(0.9) ? fuzz.pick(["lookup", "search", "f"]) : fuzz.json(1), arguments: fuzz.chance(0.1) ? fuzz.json(2) : argumentsText },
    ...(fuzz.chance(0.2) ? { extra_content: { google: { thought_signature: fuzz.chance(0.5) ? "sig" : fuzz.json(1) } } } : {}),
  };
}

function randomMessage(fuzz: Fuzz): unknown {
  const role = fuzz.pick(["system", "developer", "user", "user", "assistant", "assistant", "tool", "function", "other"]);
  const message: Record<string, unknown> = { role, content: randomContent(fuzz) };
  if (role === "assistant" && fuzz.chance(0.4)) message.tool_calls = Array.from({ length: 1 + fuzz.int(3) }, (_, call) => randomToolCall(fuzz, call));
  if (role === "tool" || role === "function") {
    message.tool_call_id = fuzz.chance(0.8) ? `call_${fuzz.int(3)}` : fuzz.json(1);
    if (fuzz.chance(0.3)) message.name = fuzz.pick(["lookup", fuzz.string()]);
  }
  return fuzz.chance(0.05) ? fuzz.json(2) : message;
}

function randomTool(fuzz: Fuzz): unknown {
  if (fuzz.chance(0.1)) return fuzz.json(2);
  return {
    type: fuzz.chance(0.9) ? "function" : fuzz.pick(["web_search", "x", 3]),
    function: {
      name: fuzz.chance(0.9) ? fuzz.pick(["lookup", "search", "f", "json_response"]) : fuzz.json(1),
      ...(fuzz.chance(0.5) ? { description: fuzz.string() } : {}),
      ...(fuzz.chance(0.8) ? { parameters: fuzz.chance(0.9) ? randomSchema(fuzz) : fuzz.json(2) } : {}),
    },
  };
}

function randomResponseFormat(fuzz: Fuzz): unknown {
  switch (fuzz.int(6)) {
    case 0:
      return { type: "text" };
    case 1:
      return { type: "json_object" };
    case 2:
    case 3:
      return { type: "json_schema", json_schema: { name: fuzz.chance(0.9) ? "answer" : fuzz.json(1), schema: randomSchema(fuzz), ...(fuzz.chance(0.3) ? { strict: true } : {}) } };
    case 4:
      return { type: fuzz.string(6) };
    default:
      return fuzz.json(2);
  }
}

/** A random OpenAI chat request body; `fuzz.mutate` it for a hostile one. */
export function randomChatBody(fuzz: Fuzz): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: "model",
    messages: Array.from({ length: 1 + fuzz.int(6) }, () => randomMessage(fuzz)),
  };
  if (fuzz.chance(0.4)) body.tools = Array.from({ length: fuzz.int(4) }, () => randomTool(fuzz));
  if (fuzz.chance(0.3)) body.tool_choice = fuzz.pick(["auto", "none", "required", { type: "function", function: { name: "lookup" } }, fuzz.json(1)]);
  if (fuzz.chance(0.3)) body.response_format = randomResponseFormat(fuzz);
  if (fuzz.chance(0.3)) body.temperature = fuzz.chance(0.8) ? fuzz.number() : fuzz.json(1);
  if (fuzz.chance(0.2)) body.max_tokens = fuzz.chance(0.8) ? fuzz.number() : fuzz.json(1);
  if (fuzz.chance(0.2)) body.stop = fuzz.pick(["x", ["a", ""], [1], fuzz.json(1)]);
  if (fuzz.chance(0.1)) body.reasoning_effort = fuzz.pick(["low", "high", "none", fuzz.json(1)]);
  if (fuzz.chance(0.1)) body.parallel_tool_calls = fuzz.json(0);
  if (fuzz.chance(0.1)) body.user = fuzz.json(0);
  if (fuzz.chance(0.05)) defineOwn(body, fuzz.string(8), fuzz.json(2));
  return body;
}
