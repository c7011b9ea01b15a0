import { describe, expect, test } from "bun:test";
import { buildResponsesRequest, speaksResponsesApi } from "./responses-request";

const channel = (config: Record<string, unknown>) => ({ baseUrl: "https://res.openai.azure.com", apiKey: "azure-key", config });

describe("Azure OpenAI's Responses API", () => {
  test("is spoken natively on the v1 API and dated versions from 2025-03-01, unless the channel says otherwise", () => {
    expect(speaksResponsesApi(channel({}))).toBe(false);
    expect(speaksResponsesApi(channel({ apiVersion: "2024-10-21" }))).toBe(false);
    expect(speaksResponsesApi(channel({ apiVersion: "v1" }))).toBe(true);
    expect(speaksResponsesApi(channel({ apiVersion: "2025-04-01-preview" }))).toBe(true);
    expect(speaksResponsesApi(channel({ apiVersion: "v1", responsesApi: false }))).toBe(false);
    expect(speaksResponsesApi(channel({ responsesApi: true }))).toBe(true);
  });

  test("goes to /openai/v1/responses or the dated path, with the deployment as the model and the api-key header", () => {
    const body = { model: "gpt-4o", input: "Hi" };
    const v1 = buildResponsesRequest({ channel: channel({ apiVersion: "v1" }), upstreamModel: "my-deployment", body, stream: false });
    expect(v1.url).toBe("https://res.openai.azure.com/openai/v1/responses");
    expect(v1.headers["api-key"]).toBe("azure-key");
    expect(JSON.parse(v1.body)).toEqual({ model: "my-deployment", input: "Hi" });
    const dated = buildResponsesRequest({ channel: channel({ apiVersion: "2025-04-01-preview" }), upstreamModel: "d", body, stream: true });
    expect(dated.url).toBe("https://res.openai.azure.com/openai/responses?api-version=2025-04-01-preview");
    expect(dated.headers.accept).toBe("text/event-stream");
    const forced = buildResponsesRequest({ channel: channel({ responsesApi: true }), upstreamModel: "d", body, stream: false });
    expect(forced.url).toBe("https://res.openai.azure.com/openai/v1/responses");
  });
});
