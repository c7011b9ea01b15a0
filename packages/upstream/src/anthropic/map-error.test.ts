import { describe, expect, test } from "bun:test";
import { anthropicFixtureText } from "../../../../test/fixtures/anthropic";
import { mapAnthropicError } from "./map-error";

const channel = { baseUrl: "https://api.anthropic.com", apiKey: "sk-ant-api03-secret", config: {} };

function mapFixture(status: number, fixture: string) {
  return mapAnthropicError(status, anthropicFixtureText(`errors/${fixture}`), channel);
}

describe("mapAnthropicError", () => {
  test("relays the status with Anthropic's message and an OpenAI-style type and code", () => {
    const mapped = [
      mapFixture(400, "400-invalid-request-error.json"),
      mapFixture(404, "404-not-found-error.json"),
      mapFixture(413, "413-request-too-large.json"),
      mapFixture(429, "429-rate-limit-error.json"),
      mapFixture(500, "500-api-error.json"),
    ];
    expect(mapped).toMatchInlineSnapshot(`
      [
        {
          "channelFault": false,
          "code": null,
          "message": "max_tokens: Field required",
          "param": null,
          "retryable": false,
          "status": 400,
          "type": "invalid_request_error",
        },
        {
          "channelFault": false,
          "code": "model_not_found",
          "message": "The requested resource could not be found.",
          "param": null,
          "retryable": false,
          "status": 404,
          "type": "invalid_request_error",
        },
        {
          "channelFault": false,
          "code": "request_too_large",
          "message": "Request exceeds the maximum allowed number of bytes.",
          "param": null,
          "retryable": false,
          "status": 413,
          "type": "invalid_request_error",
        },
        {
          "channelFault": false,
          "code": "rate_limit_exceeded",
          "message": "Your account has hit a rate limit.",
          "param": null,
          "retryable": true,
          "status": 429,
          "type": "rate_limit_error",
        },
        {
          "channelFault": false,
          "code": null,
          "message": "An unexpected error has occurred internal to Anthropic's systems.",
          "param": null,
          "retryable": true,
          "status": 500,
          "type": "server_error",
        },
      ]
    `);
  });

  test("answers an overloaded upstream (529) with 503", () => {
    expect(mapFixture(529, "529-overloaded-error.json")).toEqual({
      status: 503,
      message: "Overloaded",
      type: "server_error",
      code: "upstream_overloaded",
      param: null,
      retryable: true,
      channelFault: false,
    });
  });

  test("turns a rejected channel key or account into 502, without Anthropic's message", () => {
    for (const [status, fixture] of [
      [401, "401-authentication-error.json"],
      [403, "403-permission-error.json"],
    ] as const) {
      const error = mapFixture(status, fixture);
      expect(error).toMatchObject({ status: 502, type: "server_error", code: "upstream_auth_failed" });
      expect(error.message).toContain(`status ${status}`);
    }
    const lowCredit = JSON.stringify({
      type: "error",
      error: { type: "invalid_request_error", message: "Your credit balance is too low to access the Anthropic API." },
    });
    expect(mapAnthropicError(400, lowCredit, channel)).toMatchObject({ status: 502, code: "upstream_auth_failed" });
  });

  test("never echoes the channel key", () => {
    const body = JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: `bad header x-api-key: ${channel.apiKey}` } });
    const error = mapAnthropicError(400, body, channel);
    expect(error.message).toBe("bad header x-api-key: ***");
    expect(mapAnthropicError(502, `<html>proxy error for ${channel.apiKey}</html>`, channel).message).not.toContain(channel.apiKey);
  });

  test("falls back on the status when the body is not Anthropic's error JSON", () => {
    expect(mapAnthropicError(502, "<html>Bad Gateway</html>", channel)).toEqual({
      status: 502,
      message: "The upstream provider answered with status 502. <html>Bad Gateway</html>",
      type: "server_error",
      code: null,
      param: null,
      retryable: true,
      channelFault: false,
    });
    expect(mapAnthropicError(429, "", channel)).toMatchObject({ status: 429, type: "rate_limit_error", code: "rate_limit_exceeded" });
  });

  test("an error type it does not know, even one named like an Object member, is classed by the status", () => {
    for (const type of ["constructor", "toString", "__proto__", "billing_error"]) {
      const body = JSON.stringify({ type: "error", error: { type, message: "odd" } });
      expect(mapAnthropicError(400, body, channel)).toMatchObject({ status: 400, type: "invalid_request_error", code: null });
    }
  });
});
