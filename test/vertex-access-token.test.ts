import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AdapterChannel, createVertexAdapter, sendUpstream, ChannelCredentialError } from "@tollgate/upstream";
import { type FakeGoogleTokenEndpoint, startFakeGoogleTokenEndpoint } from "./helpers/fake-google-token-endpoint";
import { type FakeVertexUpstream, startFakeVertexUpstream } from "./helpers/fake-vertex-upstream";

/**
 * The access-token cache of the Vertex adapter, on a clock the test moves (the token endpoint and Vertex
 * judge expiry by the same clock), so that expiry and refresh are shown without waiting: one exchange per
 * credential while the token is fresh, a new one before it expires, a refused exchange never cached.
 */

const PROJECT = "clock-project";
const LOCATION = "europe-west4";
const MARGIN_MS = 5 * 60_000;

let clock = Date.UTC(2026, 0, 1);
const now = () => clock;
let tokens: FakeGoogleTokenEndpoint;
let vertex: FakeVertexUpstream;

beforeAll(async () => {
  tokens = await startFakeGoogleTokenEndpoint({ now });
  vertex = await startFakeVertexUpstream({ tokens, project: PROJECT, location: LOCATION });
});

afterAll(async () => {
  await vertex?.close();
  await tokens?.close();
});

/** A fresh adapter (its own token cache) and a channel of a new service account. */
async function setup() {
  const adapter = createVertexAdapter({ now });
  const account = await tokens.serviceAccount(PROJECT);
  const channel: AdapterChannel = { baseUrl: vertex.url, apiKey: account.keyText, config: { project: PROJECT, location: LOCATION } };
  const send = () => {
    const request = adapter.buildChatRequest({ channel, upstreamModel: "gemini-2.5-flash", body: { messages: [{ role: "user", content: "hi" }] }, stream: false });
    return sendUpstream(adapter, channel, { method: "POST", ...request }, AbortSignal.timeout(10_000));
  };
  const exchanges = () => tokens.exchanges.requests.filter((exchange) => exchange.claims.iss === account.clientEmail);
  return { adapter, channel, account, send, exchanges };
}

describe("the Vertex access token", () => {
  test("is exchanged once and reused until the refresh margin before its expiry, then replaced before it expires", async () => {
    const { send, exchanges } = await setup();
    expect((await send()).status).toBe(200);
    expect(exchanges()).toHaveLength(1);
    const firstToken = vertex.requests.requests.at(-1)!.headers.authorization;

    clock += 3599_000 - MARGIN_MS - 1000;
    expect((await send()).status).toBe(200);
    expect(exchanges()).toHaveLength(1);
    expect(vertex.requests.requests.at(-1)!.headers.authorization).toBe(firstToken);

    // Inside the margin the old token still works at Vertex, but it is replaced first.
    clock += 2000;
    expect(tokens.accepts(firstToken!.slice("Bearer ".length))).toBe(true);
    expect((await send()).status).toBe(200);
    expect(exchanges()).toHaveLength(2);
    expect(vertex.requests.requests.at(-1)!.headers.authorization).not.toBe(firstToken);
    // The new assertion was signed at the new time.
    expect(exchanges()[1]!.claims.iat).toBe(Math.floor(clock / 1000));
  });

  test("many requests at once share one exchange", async () => {
    const { send, exchanges } = await setup();
    const answers = await Promise.all(Array.from({ length: 8 }, send));
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    expect(exchanges()).toHaveLength(1);
  });

  test("a token endpoint that fails (503) is a network-like failure, not the channel's fault, and nothing is cached", async () => {
    const { send, exchanges } = await setup();
    tokens.failNext(503);
    const error = await send().catch((caught) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ChannelCredentialError);
    expect((await send()).status).toBe(200);
    expect(exchanges()).toHaveLength(1);
  });

  test("a refresh the token endpoint fails (503) inside the margin keeps the request going with the token that still lives", async () => {
    const { send, exchanges } = await setup();
    expect((await send()).status).toBe(200);
    const firstToken = vertex.requests.requests.at(-1)!.headers.authorization;
    clock += 3599_000 - MARGIN_MS + 1000;
    tokens.failNext(503);
    expect((await send()).status).toBe(200);
    expect(vertex.requests.requests.at(-1)!.headers.authorization).toBe(firstToken);
    // Nothing was cached from the failure: the next request tries the refresh again, and gets a new token.
    expect((await send()).status).toBe(200);
    expect(exchanges()).toHaveLength(2);
    expect(vertex.requests.requests.at(-1)!.headers.authorization).not.toBe(firstToken);
  });

  test("a token that Vertex no longer takes after its expiry is never sent: the next request exchanges again", async () => {
    const { send, exchanges } = await setup();
    expect((await send()).status).toBe(200);
    clock += 2 * 3600_000;
    expect((await send()).status).toBe(200);
    expect(exchanges()).toHaveLength(2);
  });

  test("a revoked key is refused by the token endpoint: ChannelCredentialError with Google's reason, and the next request asks again", async () => {
    const { send, exchanges, account } = await setup();
    tokens.revoke(account.clientEmail);
    const error = await send().catch((caught) => caught);
    expect(error).toBeInstanceOf(ChannelCredentialError);
    expect(error.message).toContain("invalid_grant: Invalid JWT Signature.");
    expect(error.message).not.toContain("PRIVATE KEY");
    await send().catch(() => {});
    expect(exchanges()).toHaveLength(2);
    expect(exchanges().every((exchange) => exchange.refused === "Invalid JWT Signature.")).toBe(true);
  });

  test("the assertion carries what Google checks: RS256 with the key's id, iss, aud, scope and a one-hour lifetime", async () => {
    const { send, exchanges, account } = await setup();
    await send();
    const { claims } = exchanges()[0]!;
    expect(claims).toMatchObject({ iss: account.clientEmail, aud: tokens.tokenUri, scope: "https://www.googleapis.com/auth/cloud-platform" });
    expect((claims.exp as number) - (claims.iat as number)).toBe(3600);
  });
});
