import { describe, expect, test } from "bun:test";
import { anthropicFixtureJson } from "../../../../../test/fixtures/anthropic";
import { anthropicErrorBody, anthropicErrorEvent, anthropicErrorResponse, anthropicErrorTypeFor } from "./anthropic-error";

describe("anthropicErrorBody", () => {
  test("has the shape of Anthropic's documented error bodies (request_id aside)", () => {
    const documented = anthropicFixtureJson<{ type: string; error: unknown }>("errors/404-not-found-error.json");
    expect(anthropicErrorBody(404, "The requested resource could not be found.")).toEqual({ type: documented.type, error: documented.error } as never);
  });

  test("names the error type for each status", () => {
    const statuses = [400, 401, 402, 403, 404, 409, 413, 422, 429, 500, 502, 503, 504, 529];
    expect(Object.fromEntries(statuses.map((status) => [status, anthropicErrorTypeFor(status)]))).toMatchInlineSnapshot(`
      {
        "400": "invalid_request_error",
        "401": "authentication_error",
        "402": "billing_error",
        "403": "permission_error",
        "404": "not_found_error",
        "409": "invalid_request_error",
        "413": "request_too_large",
        "422": "invalid_request_error",
        "429": "rate_limit_error",
        "500": "api_error",
        "502": "api_error",
        "503": "api_error",
        "504": "timeout_error",
        "529": "overloaded_error",
      }
    `);
  });

  test("comes as a Response and as an SSE error event", async () => {
    const response = anthropicErrorResponse(429, "Too many requests for this API key.", { "retry-after": "3" });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("3");
    expect(await response.json()).toEqual({ type: "error", error: { type: "rate_limit_error", message: "Too many requests for this API key." } });
    expect(anthropicErrorEvent(529, "Overloaded")).toEqual({
      event: "error",
      data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    });
  });
});
