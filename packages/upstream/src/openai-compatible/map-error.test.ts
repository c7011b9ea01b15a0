import { describe, expect, test } from "bun:test";
import { mapError } from "./map-error";

const channel = { baseUrl: "https://api.example.com/v1", apiKey: "sk-upstream-secret", config: {} };

describe("openai-compatible mapError", () => {
  test("a refused key is the channel's fault and reaches the caller as 502 upstream_auth_failed", () => {
    for (const status of [401, 403]) {
      expect(mapError(status, '{"error":{"message":"Incorrect API key","code":"invalid_api_key"}}', channel)).toEqual({
        status: 502,
        message: `The upstream provider rejected the gateway's credentials (status ${status}).`,
        type: "server_error",
        code: "upstream_auth_failed",
        param: null,
        retryable: false,
        channelFault: true,
      });
    }
  });

  test("429 and 5xx are retryable; a 4xx is the caller's and relayed with the upstream's fields", () => {
    expect(mapError(429, '{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}', channel)).toMatchObject({
      status: 429,
      type: "requests",
      retryable: true,
      channelFault: false,
    });
    expect(mapError(503, "", channel)).toMatchObject({ status: 503, type: "server_error", retryable: true });
    expect(mapError(400, '{"error":{"message":"bad","type":"invalid_request_error","param":"messages","code":400}}', channel)).toEqual({
      status: 400,
      message: "bad",
      type: "invalid_request_error",
      code: "400",
      param: "messages",
      retryable: false,
      channelFault: false,
    });
  });

  test("looser error shapes are read, non-JSON bodies quoted, and the key scrubbed", () => {
    expect(mapError(422, '{"detail":"extra_forbidden"}', channel).message).toBe("extra_forbidden");
    expect(mapError(400, '{"error":"no such model"}', channel).message).toBe("no such model");
    expect(mapError(404, "<html>not here sk-upstream-secret</html>", channel)).toMatchObject({
      status: 404,
      type: "not_found_error",
      message: "The upstream provider answered with status 404. <html>not here ***</html>",
    });
    expect(mapError(302, "", channel).status).toBe(502);
  });
});
