import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { type FakeAnthropicUpstream, startFakeAnthropicUpstream } from "./helpers/fake-anthropic-upstream";
import { type FakeGeminiUpstream, startFakeGeminiUpstream } from "./helpers/fake-gemini-upstream";
import { type FakeMediaUpstream, startFakeMediaUpstream } from "./helpers/fake-openai-media-upstream";
import { type FreshDatabase, freshDatabase } from "./helpers/fresh-database";
import { type GatewayUnderTest, seeder, startGateway } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let database: FreshDatabase;
let gemini: FakeGeminiUpstream;
let anthropic: FakeAnthropicUpstream;
let media: FakeMediaUpstream;
let gateway: GatewayUnderTest;
let gatewayUrl: string;
let client: OpenAI;
let apiKey: string;

beforeAll(async () => {
  database = await freshDatabase();
  gemini = await startFakeGeminiUpstream({ requireApiKey: "AIza-upstream" });
  anthropic = await startFakeAnthropicUpstream({ requireApiKey: "sk-ant-upstream" });
  media = await startFakeMediaUpstream();
  gateway = await startGateway(database.handle);
  gatewayUrl = await gateway.listen();
  const seed = seeder(database.handle, gateway.secretBox, [gateway]);
  const userId = (await seed.user()).id;
  await seed.channel({ name: "gemini", type: "gemini", baseUrl: gemini.url, apiKey: "AIza-upstream", models: ["gemini-2.5-flash"] });
  await seed.channel({ name: "claude", type: "anthropic", baseUrl: anthropic.url, apiKey: "sk-ant-upstream", models: ["claude-sonnet-4-5"] });
  await seed.channel({ name: "media", baseUrl: media.url, models: ["whisper-1"] });
  apiKey = (await seed.token({ userId })).secret;
  client = new OpenAI({ apiKey, baseURL: gatewayUrl, maxRetries: 0 });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await gateway?.stop();
  await gemini?.close();
  await anthropic?.close();
  await media?.close();
  await database?.drop();
}, SETUP_TIMEOUT_MS);

/** `count` $defs of ten properties each, every property referring to the next definition (the last: strings). */
function chainedDefinitions(count: number): Record<string, unknown> {
  const definitions: Record<string, unknown> = {};
  for (let index = 0; index < count; index++) {
    const properties: Record<string, unknown> = {};
    for (let property = 0; property < 10; property++) {
      properties[`p${property}`] = index < count - 1 ? { $ref: `#/$defs/d${index + 1}` } : { type: "string" };
    }
    definitions[`d${index}`] = { type: "object", properties };
  }
  return { type: "object", properties: { root: { $ref: "#/$defs/d0" } }, required: ["root"], $defs: definitions };
}

function schemaFormat(schema: Record<string, unknown>) {
  return { type: "json_schema" as const, json_schema: { name: "answer", schema } };
}

function countNodes(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  return 1 + Object.values(value).reduce<number>((sum, child) => sum + countNodes(child), 0);
}

describe("schemas on a Gemini channel (no $ref there, so definitions are inlined)", () => {
  test("a 2 KB response_format whose eight $defs refer to each other ten times over is refused with 400 invalid_value, and Gemini is sent nothing", async () => {
    const schema = chainedDefinitions(8);
    expect(JSON.stringify(schema).length).toBeLessThan(3_000);
    const before = gemini.requests.length;
    const error = await client.chat.completions
      .create({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "Hi" }], response_format: schemaFormat(schema) })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toMatchObject({ type: "invalid_request_error", code: "invalid_value", param: "response_format" });
    expect(gemini.requests.length).toBe(before);
  });

  test("five chained $defs (100,000 nodes once inlined) are refused too, where every use used to be expanded and sent", async () => {
    const before = gemini.requests.length;
    const error = await client.chat.completions
      .create({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "Hi" }], response_format: schemaFormat(chainedDefinitions(5)) })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toMatchObject({ code: "invalid_value", param: "response_format" });
    expect(gemini.requests.length).toBe(before);
  });

  test("a schema whose definitions are shared within the budget is sent with every use inlined", async () => {
    gemini.enqueue({ kind: "json", value: { root: {} } });
    const completion = await client.chat.completions.create({
      model: "gemini-2.5-flash",
      messages: [{ role: "user", content: "Hi" }],
      response_format: schemaFormat(chainedDefinitions(3)),
    });
    expect(completion.choices[0]!.message.content).toContain("root");
    const sent = gemini.requests.at(-1)!.body.generationConfig.responseSchema;
    expect(sent.properties.root.properties.p9.properties.p0.properties.p3).toEqual({ type: "string" });
    expect(JSON.stringify(sent)).not.toContain("$ref");
    // The top schema, its properties and `required`; d0 once, d1 ten times, d2 a hundred times (each with
    // its properties), and the thousand strings of the hundred d2s.
    expect(countNodes(sent)).toBe(3 + 2 + 20 + 200 + 1_000);
  });

  test("definitions that refer to each other in a cycle end in a bounded schema", async () => {
    gemini.enqueue({ kind: "json", value: { a: {} } });
    const schema = {
      type: "object",
      properties: { a: { $ref: "#/$defs/a" } },
      $defs: {
        a: { type: "object", properties: { b: { $ref: "#/$defs/b" }, self: { $ref: "#/$defs/a" } } },
        b: { type: "object", properties: { a: { $ref: "#/$defs/a" } } },
      },
    };
    await client.chat.completions.create({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "Hi" }], response_format: schemaFormat(schema) });
    const sent = gemini.requests.at(-1)!.body.generationConfig.responseSchema;
    expect(JSON.stringify(sent)).not.toContain("$ref");
    expect(countNodes(sent)).toBeLessThan(10_000);
  });

  test("tool parameters share the request's budget and the 400 names the tool's parameters", async () => {
    const before = gemini.requests.length;
    const error = await client.chat.completions
      .create({
        model: "gemini-2.5-flash",
        messages: [{ role: "user", content: "Hi" }],
        tools: [{ type: "function", function: { name: "lookup", parameters: chainedDefinitions(8) } }],
      })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toMatchObject({ code: "invalid_value", param: "tools[0].function.parameters" });
    expect(gemini.requests.length).toBe(before);
  });
});

describe("nesting of client JSON", () => {
  test("a tool schema nested 20,000 levels deep is a 400 invalid_value on an Anthropic channel, not a crash of the translator", async () => {
    const before = anthropic.requests.length;
    const response = await fetch(`${gatewayUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"Hi"}],"tools":[{"type":"function","function":{"name":"deep","parameters":{"type":"object","properties":{"a":{"examples":${"[".repeat(20_000)}${"]".repeat(20_000)}}}}}}]}`,
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({ type: "invalid_request_error", code: "invalid_value" });
    expect(anthropic.requests.length).toBe(before);
  });

  test("a /v1/messages body nested past 128 levels is a 400 in Anthropic's error shape", async () => {
    const before = anthropic.requests.length;
    const response = await fetch(`${gatewayUrl}/messages`, {
      method: "POST",
      headers: { "x-api-key": apiKey, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"Hi"}],"metadata":{"x":${"[".repeat(200)}${"]".repeat(200)}}}`,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    expect(anthropic.requests.length).toBe(before);
  });

  test("definitions that nest past the converter's depth once inlined are refused on a Gemini channel with the field named", async () => {
    // Eight definitions of twelve levels, each used once by the previous: small, but 96 levels once inlined.
    const definitions: Record<string, unknown> = {};
    for (let index = 0; index < 8; index++) {
      let value: unknown = index < 7 ? { $ref: `#/$defs/d${index + 1}` } : { type: "string" };
      for (let level = 0; level < 12; level++) value = { type: "object", properties: { inner: value } };
      definitions[`d${index}`] = value;
    }
    const schema = { type: "object", properties: { root: { $ref: "#/$defs/d0" } }, $defs: definitions };
    const error = await client.chat.completions
      .create({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "Hi" }], response_format: schemaFormat(schema) })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toMatchObject({ code: "invalid_value", param: "response_format" });
  });
});

describe("multipart uploads", () => {
  // One letter, as the reproduction used: a part of one name is then 52 bytes.
  const boundary = "x";

  function partsBody(count: number): Uint8Array<ArrayBuffer> {
    const part = `--${boundary}\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n`;
    return new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n${part.repeat(count)}--${boundary}--\r\n`);
  }

  async function upload(body: Uint8Array<ArrayBuffer>): Promise<Response> {
    return fetch(`${gatewayUrl}/audio/transcriptions`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": `multipart/form-data; boundary=${boundary}` },
      body,
    });
  }

  test("320,000 parts of one name (15.9 MiB, under the body limit) get a 400 in the OpenAI envelope and reach no upstream", async () => {
    const body = partsBody(320_000);
    expect(body.byteLength).toBeGreaterThan(15 * 1024 * 1024);
    expect(body.byteLength).toBeLessThan(16 * 1024 * 1024);
    const before = media.requests.length;
    const response = await upload(body);
    expect(response.status).toBe(400);
    const { error } = await response.json();
    expect(error).toMatchObject({ type: "invalid_request_error", code: "invalid_multipart", param: null });
    expect(error.message).toContain("1000 parts");
    expect(media.requests.length).toBe(before);
  });

  test("1,001 parts are refused for their number, before the missing file is looked for", async () => {
    const response = await upload(partsBody(1_000));
    // The model part and 1,000 others.
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe("invalid_multipart");
  });

  test("an upload within the cap keeps every value of a repeated field and is relayed", async () => {
    const form = new FormData();
    form.append("model", "whisper-1");
    form.append("file", new File([new Uint8Array(2_000)], "speech.mp3", { type: "audio/mpeg" }));
    for (const granularity of ["word", "segment"]) form.append("timestamp_granularities[]", granularity);
    form.append("response_format", "verbose_json");
    const response = await fetch(`${gatewayUrl}/audio/transcriptions`, { method: "POST", headers: { authorization: `Bearer ${apiKey}` }, body: form });
    expect(response.status).toBe(200);
    expect(media.requests.at(-1)!.fields).toMatchObject({ model: "whisper-1", response_format: "verbose_json" });
  });
});
