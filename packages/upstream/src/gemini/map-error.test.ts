import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { mapError } from "./map-error";

const fixtures = join(import.meta.dir, "../../../../test/fixtures/gemini/errors");
const channel = { baseUrl: "https://generativelanguage.googleapis.com", apiKey: "test-gemini-key", config: {} };

async function mapFixture(status: number, name: string) {
  return mapError(status, await Bun.file(join(fixtures, name)).text(), channel);
}

describe("gemini mapError", () => {
  test("INVALID_ARGUMENT is a relayed 400 invalid_request_error naming the field", async () => {
    expect(await mapFixture(400, "400-invalid-argument.json")).toEqual({
      status: 400,
      message: "Invalid JSON payload received. Unknown name \"maxTokens\" at 'generation_config': Cannot find field.",
      type: "invalid_request_error",
      code: "invalid_argument",
      param: "generation_config",
      retryable: false,
      channelFault: false,
    });
  });

  test("a key Google refuses is the gateway's problem: 502 upstream_auth_failed, whatever the status", async () => {
    const expected = {
      type: "server_error",
      code: "upstream_auth_failed",
      param: null,
      status: 502,
    };
    expect(await mapFixture(400, "400-api-key-invalid.json")).toMatchObject(expected);
    expect(await mapFixture(403, "403-permission-denied.json")).toMatchObject(expected);
    expect(mapError(401, '{"error":{"code":401,"status":"UNAUTHENTICATED","message":"no"}}', channel)).toMatchObject(expected);
  });

  test("NOT_FOUND, RESOURCE_EXHAUSTED, INTERNAL and UNAVAILABLE keep their status with OpenAI types", async () => {
    expect(await mapFixture(404, "404-model-not-found.json")).toMatchObject({ status: 404, type: "not_found_error", code: "not_found" });
    expect(await mapFixture(429, "429-resource-exhausted.json")).toMatchObject({
      status: 429,
      type: "rate_limit_error",
      code: "rate_limit_exceeded",
      message: expect.stringMatching(/^You exceeded your current quota/),
    });
    expect(await mapFixture(500, "500-internal.json")).toMatchObject({ status: 500, type: "server_error", code: "server_error" });
    expect(await mapFixture(503, "503-unavailable.json")).toMatchObject({
      status: 503,
      type: "server_error",
      code: "service_unavailable",
      message: "The model is overloaded. Please try again later.",
    });
  });

  test("the channel key never survives into the message, and a body that is not JSON still maps", () => {
    const echoed = mapError(400, '{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"bad request for key test-gemini-key"}}', channel);
    expect(echoed.message).toBe("bad request for key ***");
    const html = mapError(502, "<html>Bad Gateway test-gemini-key</html>", channel);
    expect(html).toMatchObject({ status: 502, type: "server_error", code: null });
    expect(html.message).not.toContain("test-gemini-key");
  });
});
