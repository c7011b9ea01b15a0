import { describe, expect, test } from "bun:test";
import { renderToStaticMarkup } from "react-dom/server";
import { LogDetail, type LogRow } from "./log-detail";

const row = (responseCache: string | null) =>
  ({
    createdAt: new Date("2030-01-01T00:00:00Z"),
    requestId: "req_1",
    endpoint: "chat.completions",
    status: 200,
    errorCode: null,
    model: "gpt-x",
    upstreamModel: null,
    tokenName: "t",
    userId: 1,
    userName: "alice",
    channelId: null,
    channelName: null,
    channelsTried: null,
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    usageEstimated: false,
    cost: 1234,
    cacheSavings: 0,
    latencyMs: 3,
    firstTokenMs: 3,
    stream: false,
    clientIp: null,
    responseCache,
  }) as unknown as LogRow;

describe("LogDetail", () => {
  test("a call answered from the response cache says so; one the cache never saw has no such line", () => {
    const render = (value: string | null) => renderToStaticMarkup(<LogDetail row={row(value)} isAdmin={false} channelName={String} onClose={() => {}} />);
    expect(render("hit")).toContain("answered from the cache");
    expect(render("bypass")).toContain("bypassed");
    expect(render(null)).not.toContain("Response cache");
  });
});
