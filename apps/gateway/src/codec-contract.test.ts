import { describe, expect, test } from "bun:test";
import type { Caller } from "./auth/authenticate";
import { ENDPOINT_TABLE } from "./endpoint-table";
import { GatewayError } from "./errors";
import type { GatewayServices } from "./gateway-services";
import type { Admission } from "./pipeline/admit";
import type { AnyCodec, CodecRow, EndpointRow } from "./pipeline/endpoint";

/**
 * The contract every codec of the endpoint table passes, run against each codec row: what the exchange
 * relies on without knowing the endpoint. A codec's own behaviour is tested beside it; this file checks that
 * its parse answers a body without its fields with a 400 (never a TypeError, which would be a 500) and a
 * minimal valid one with the facts routing reads.
 */

/** What parse may read of the services: the settings (the Responses codec's retention); nothing else. */
const services = { settings: { get: () => ({ responsesRetentionDays: 30 }) } } as unknown as GatewayServices;

const caller = { token: { id: 1 }, user: { id: 1 } } as unknown as Caller;

/**
 * A minimal valid request per endpoint, besides its model (which admission has already checked): a new
 * endpoint adds its own here, so that the contract can call its parse. `form` holds a multipart upload's files.
 */
const minimalRequests: Record<string, { fields: Record<string, unknown>; files?: Record<string, File> }> = {
  "chat.completions": { fields: { messages: [{ role: "user", content: "Hello" }] } },
  completions: { fields: { prompt: "Hello" } },
  responses: { fields: { input: "Hello" } },
  messages: { fields: { max_tokens: 16, messages: [{ role: "user", content: "Hello" }] } },
  "messages.count_tokens": { fields: { messages: [{ role: "user", content: "Hello" }] } },
  embeddings: { fields: { input: "Hello" } },
  "images.generations": { fields: { prompt: "A lighthouse" } },
  "images.edits": { fields: { prompt: "Add a boat" }, files: { image: new File([new Uint8Array([137, 80, 78, 71])], "image.png", { type: "image/png" }) } },
  "audio.transcriptions": { fields: {}, files: { file: new File([new Uint8Array(64)], "audio.mp3", { type: "audio/mpeg" }) } },
  "audio.translations": { fields: {}, files: { file: new File([new Uint8Array(64)], "audio.mp3", { type: "audio/mpeg" }) } },
  "audio.speech": { fields: { input: "Hello", voice: "alloy" } },
  moderations: { fields: { input: "Hello" } },
  rerank: { fields: { query: "Hello", documents: ["Hello there", "Goodbye"] } },
  "gemini.generateContent": { fields: { contents: [{ role: "user", parts: [{ text: "Hello" }] }] } },
  "gemini.streamGenerateContent": { fields: { contents: [{ role: "user", parts: [{ text: "Hello" }] }] } },
  "gemini.countTokens": { fields: { contents: [{ role: "user", parts: [{ text: "Hello" }] }] } },
  "gemini.embedContent": { fields: { content: { parts: [{ text: "Hello" }] } } },
  "gemini.batchEmbedContents": { fields: { requests: [{ content: { parts: [{ text: "Hello" }] } }] } },
};

function admission(codec: AnyCodec, fields: Record<string, unknown>, files: Record<string, File> = {}): Admission {
  const model = "contract-model";
  const value = { model, ...fields };
  const text = JSON.stringify(value);
  const body = { value, text, bytes: Buffer.byteLength(text) };
  if (codec.bodyFormat !== "multipart") return { caller, body, model };
  const form = new FormData();
  for (const [name, field] of Object.entries(value)) form.append(name, String(field));
  for (const [name, file] of Object.entries(files)) form.append(name, file);
  return { caller, body, model, form, upload: { bytes: new Uint8Array(0), contentType: "multipart/form-data; boundary=contract" } };
}

/** A client's request as the codecs may read it: Anthropic's version header, and Google's alt=sse for a stream. */
function clientRequest(): Request {
  return new Request("http://gateway.test/v1/contract?alt=sse", { method: "POST", headers: { "anthropic-version": "2023-06-01" } });
}

const isCodecRow = (row: EndpointRow): row is CodecRow => "codec" in row;
const codecs: { path: string; codec: AnyCodec }[] = ENDPOINT_TABLE.filter(isCodecRow).map((row) => ({
  path: row.path,
  codec: typeof row.codec === "function" ? row.codec(services) : row.codec,
}));

describe("the codec contract", () => {
  test("runs against every codec row of the endpoint table", () => {
    // A codec served under two paths (the Gemini API's /v1beta and /v1) is one endpoint.
    expect([...new Set(codecs.map(({ codec }) => codec.endpoint))].sort()).toEqual(Object.keys(minimalRequests).sort());
  });

  for (const { path, codec } of codecs) {
    describe(`${codec.endpoint} (${path})`, () => {
      test("names its endpoint and whose identifier rules its body follows", () => {
        expect(codec.endpoint).toBeString();
        expect(codec.endpoint.length).toBeGreaterThan(0);
        expect(["openai", "anthropic"]).toContain(codec.identifiers);
        for (const member of ["parse", "prepare", "readWhole", "producedText", "estimateUsage", "errorResponse"] as const) {
          expect(codec[member], member).toBeFunction();
        }
      });

      test("answers a body without its required fields with a 400 GatewayError, not a TypeError", async () => {
        let thrown: unknown = null;
        try {
          await codec.parse(admission(codec, {}), services, clientRequest());
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(GatewayError);
        expect((thrown as GatewayError).status).toBe(400);
      });

      test("returns the facts routing reads for a minimal valid body: the request, the max output (a number or none) and whether it streams", async () => {
        const minimal = minimalRequests[codec.endpoint];
        if (!minimal) throw new Error(`The codec contract has no minimal request for ${codec.endpoint}: add one to minimalRequests`);
        const parsed = await codec.parse(admission(codec, minimal.fields, minimal.files), services, clientRequest());
        expect(parsed.request).toBeDefined();
        expect(parsed.maxOutputTokens === null || (typeof parsed.maxOutputTokens === "number" && parsed.maxOutputTokens >= 0)).toBe(true);
        expect(parsed.stream).toBeBoolean();
        if (parsed.answers !== undefined) expect(parsed.answers).toBeGreaterThanOrEqual(1);
      });

      test("answers each of its fields given a value of the wrong kind with a 400 GatewayError or takes it, never with another error", async () => {
        const minimal = minimalRequests[codec.endpoint];
        if (!minimal) throw new Error(`The codec contract has no minimal request for ${codec.endpoint}: add one to minimalRequests`);
        for (const field of [...Object.keys(minimal.fields), "stream", "max_tokens", "n"]) {
          for (const wrong of [null, 0, -1, 1.5, "", "text", true, [], [null], {}, { nested: [1] }]) {
            const fields = { ...minimal.fields, [field]: wrong };
            try {
              await codec.parse(admission(codec, fields, minimal.files), services, clientRequest());
            } catch (error) {
              expect(error, `${field}: ${JSON.stringify(wrong)}`).toBeInstanceOf(GatewayError);
              expect((error as GatewayError).status, `${field}: ${JSON.stringify(wrong)}`).toBe(400);
            }
          }
        }
      });

      test("renders an error in its client's format with the error's status", async () => {
        const response = codec.errorResponse(new GatewayError("Contract check.", { status: 400, code: "invalid_value" }), {});
        expect(response.status).toBe(400);
        const body = (await response.json()) as { error?: { message?: unknown } };
        expect(body.error?.message).toBe("Contract check.");
      });
    });
  }
});
