import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { mapError } from "./map-error";

const fixtures = join(import.meta.dir, "../../../../test/fixtures/azure-openai/errors");
const channel = { baseUrl: "https://tollgate-test.openai.azure.com", apiKey: "test-azure-key", config: {} };
const mapFixture = async (status: number, name: string) => mapError(status, await Bun.file(join(fixtures, name)).text(), channel);

describe("azure-openai mapError", () => {
  test("a prompt the content filter refused is a 400 with code content_filter", async () => {
    expect(await mapFixture(400, "400-content-filter.json")).toEqual({
      status: 400,
      message: expect.stringMatching(/^The response was filtered due to the prompt triggering Azure OpenAI's content management policy/),
      type: "invalid_request_error",
      code: "content_filter",
      param: "prompt",
      retryable: false,
      channelFault: false,
    });
  });

  test("an OpenAI-style validation error keeps its type, code and param", async () => {
    expect(await mapFixture(400, "400-invalid-request.json")).toMatchObject({
      status: 400,
      type: "invalid_request_error",
      code: "invalid_value",
      param: "temperature",
    });
  });

  test("a refused key is 502 upstream_auth_failed", async () => {
    expect(await mapFixture(401, "401-access-denied.json")).toEqual({
      status: 502,
      message: "The upstream provider rejected the gateway's credentials (status 401).",
      type: "server_error",
      code: "upstream_auth_failed",
      param: null,
      retryable: false,
      channelFault: true,
    });
  });

  test("numeric codes become OpenAI codes; named codes and statuses are kept", async () => {
    expect(await mapFixture(429, "429-rate-limit.json")).toMatchObject({ status: 429, type: "rate_limit_error", code: "rate_limit_exceeded" });
    expect(await mapFixture(404, "404-deployment-not-found.json")).toMatchObject({
      status: 404,
      type: "not_found_error",
      code: "DeploymentNotFound",
    });
    expect(await mapFixture(500, "500-server-error.json")).toMatchObject({ status: 500, type: "server_error", code: null });
  });

  test("the key is scrubbed and a non-JSON body still maps", () => {
    expect(mapError(400, '{"error":{"message":"bad key test-azure-key","code":"BadRequest"}}', channel).message).toBe("bad key ***");
    expect(mapError(503, "upstream connect error test-azure-key", channel)).toMatchObject({
      status: 503,
      type: "server_error",
      message: "The upstream provider answered with status 503. upstream connect error ***",
    });
  });
});
