import { describe, expect, test } from "bun:test";
import { adapterFor } from "../adapters";

const channel = { baseUrl: "https://api.anthropic.com", apiKey: "sk-ant-test", config: {} };
const body = { model: "claude-public", messages: [{ role: "user", content: "hi" }] };

describe("the countTokens capability", () => {
  test("Anthropic's adapter asks the upstream's count_tokens, with the upstream model and the client's headers", () => {
    const countTokens = adapterFor("anthropic").countTokens;
    expect(countTokens).toBeDefined();
    const request = countTokens!({ channel, upstreamModel: "claude-upstream", body, text: JSON.stringify(body), version: "2023-06-01", beta: "tools-beta" });
    expect(request.url).toBe("https://api.anthropic.com/v1/messages/count_tokens");
    expect(JSON.parse(request.body).model).toBe("claude-upstream");
    expect(request.headers).toMatchObject({ "x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01", "anthropic-beta": "tools-beta" });
  });

  test("the adapters of upstreams that do not count tokens leave it out (the gateway counts locally)", () => {
    for (const type of ["openai-compatible", "gemini", "azure-openai"]) expect(adapterFor(type).countTokens).toBeUndefined();
  });
});

describe("the ownedBy capability", () => {
  test("an OpenAI-compatible channel's models are the gateway's to name; other types name none (their type is used)", () => {
    expect(adapterFor("openai-compatible").ownedBy).toBe("tollgate");
    for (const type of ["anthropic", "gemini", "azure-openai"]) expect(adapterFor(type).ownedBy).toBeUndefined();
  });
});

describe("the messages capability", () => {
  test("Anthropic's adapter sends the client's Messages request as it came, to /v1/messages", () => {
    const messages = adapterFor("anthropic").messages;
    const text = JSON.stringify(body);
    const request = messages!({ channel, upstreamModel: "claude-public", body, text, version: null, beta: null });
    expect(request?.url).toBe("https://api.anthropic.com/v1/messages");
    expect(request?.body).toBe(text);
  });

  test("the adapters of upstreams that do not speak the Messages API leave it out (the request is translated through chat)", () => {
    for (const type of ["openai-compatible", "gemini", "azure-openai"]) expect(adapterFor(type).messages).toBeUndefined();
  });
});
