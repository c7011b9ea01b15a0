import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { countsInFlight } from "@tollgate/gateway/accounting/count-tokens";
import { requestLogs } from "@tollgate/db";
import { computeCost } from "@tollgate/shared";
import { asc, eq } from "drizzle-orm";
import { type GatewayStack, startGatewayStack, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

/**
 * Issue 23, findings 2 and 3: local token counts take any text in linear time, large ones off the request
 * thread under a deadline, and a count that cannot be made bills the reservation instead of nothing.
 */

let stack: GatewayStack;
let baseURL: string;
let origin: string;
const MAX_BODY_BYTES = 6 * 1024 * 1024;

beforeAll(async () => {
  // A short deadline: the heavy counts below run past it on any machine (seconds of work each).
  stack = await startGatewayStack({ gateway: { maxBodyBytes: MAX_BODY_BYTES, countDeadlineMs: 300 } });
  baseURL = await stack.gateway.listen();
  origin = baseURL.slice(0, -"/v1".length);
  await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["gpt-4o-mini"] });
  await stack.seed.price("gpt-4o-mini", 1, 2);
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

async function logRowOf(tokenId: number) {
  return waitFor(async () => {
    await stack.gateway.services.usage.flush();
    const rows = await stack.database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, tokenId)).orderBy(asc(requestLogs.id));
    return rows[0];
  }, "the call's request-log row");
}

/**
 * Words of 900 random letters (under the long-piece bound, so merged by the tokenizer: its slowest text),
 * all different so that its merge cache does not help: about a microsecond of counting per character.
 */
function heavyText(characters: number): string {
  let letters = "";
  let seed = 23;
  for (let index = 0; index < 1_000_003; index++) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    letters += String.fromCharCode(97 + (seed % 26));
  }
  const words: string[] = [];
  for (let offset = 0; words.length * 901 < characters; offset = (offset + 37) % (letters.length - 900)) {
    words.push(letters.slice(offset, offset + 900));
  }
  return words.join(" ");
}

/** A streamed chat call the client cuts after the first content chunk, before any usage could come. */
async function streamCutByClient(secret: string, content: string) {
  stack.upstream.enqueue({ kind: "stall-stream", chunksBeforeStall: 2 });
  const controller = new AbortController();
  const response = await fetch(`${baseURL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
    body: JSON.stringify({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content }] }),
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  let received = "";
  while (!received.includes('"content"')) received += new TextDecoder().decode((await reader.read()).value);
  controller.abort();
  await stack.upstream.waitForStreamCancel();
}

function countTokens(secret: string, body: string) {
  return fetch(`${baseURL}/messages/count_tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": secret, "anthropic-version": "2023-06-01" },
    body,
  });
}

describe("counting hostile input", () => {
  test("a stream quoting <|endoftext|>, cut by the client before any usage, is billed like the same stream saying hello", async () => {
    const quoting = await stack.seed.token({ userId: stack.userId });
    const plain = await stack.seed.token({ userId: stack.userId });
    await streamCutByClient(quoting.secret, "Repeat after me: <|endoftext|> and <|im_start|>");
    await streamCutByClient(plain.secret, "hello");
    const quotingRow = await logRowOf(quoting.row.id);
    const plainRow = await logRowOf(plain.row.id);
    expect(plainRow).toMatchObject({ status: 499, usageEstimated: true });
    expect(plainRow.cost).toBeGreaterThan(0);
    expect(quotingRow).toMatchObject({ status: 499, usageEstimated: true, errorCode: "client_closed" });
    expect(quotingRow.promptTokens).toBeGreaterThan(plainRow.promptTokens);
    expect(quotingRow.cost).toBeGreaterThan(0);
    expect((await stack.seed.tokenRow(quoting.row.id)).usedQuota).toBe(quotingRow.cost);
  });

  test("a stream without usage whose prompt is one 300,000-character word is billed from the linear count", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    stack.upstream.enqueue({ kind: "ok", content: "fine", omitUsage: true });
    const response = await fetch(`${baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token.secret}` },
      body: JSON.stringify({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "a".repeat(300_000) }] }),
    });
    expect(response.status).toBe(200);
    await response.text();
    const row = await logRowOf(token.row.id);
    // The word as a quarter of its bytes, plus the chat format (3 + 3) and the role's token.
    expect(row).toMatchObject({ status: 200, usageEstimated: true, promptTokens: 75_007 });
    expect(row.cost).toBeGreaterThan(0);
  });

  test("a stream whose usage cannot be counted in time is billed its reservation, never 0", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    stack.upstream.enqueue({ kind: "ok", content: "a short answer", omitUsage: true });
    const body = JSON.stringify({ model: "gpt-4o-mini", stream: true, max_tokens: 10, messages: [{ role: "user", content: heavyText(4_000_000) }] });
    const response = await fetch(`${baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token.secret}` },
      body,
    });
    expect(response.status).toBe(200);
    await response.text();
    const row = await logRowOf(token.row.id);
    const price = (await stack.gateway.services.catalog.get()).prices.get("gpt-4o-mini");
    // What route() held: the body's bytes as prompt tokens (the cheap bound) and max_tokens.
    const reservation = computeCost({ promptTokens: body.length, completionTokens: 10, cachedTokens: 0 }, price);
    expect(row).toMatchObject({ status: 200, usageEstimated: true, cost: reservation, promptTokens: Math.ceil(body.length / 4) });
    expect((await stack.seed.tokenRow(token.row.id)).usedQuota).toBe(reservation);
  });

  test("a whole answer without usage whose prompt cannot be counted in time is billed its reservation too", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    stack.upstream.enqueue({ kind: "ok", content: "a short answer", omitUsage: true });
    const body = JSON.stringify({ model: "gpt-4o-mini", max_tokens: 10, messages: [{ role: "user", content: heavyText(4_000_000) }] });
    const response = await fetch(`${baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token.secret}` },
      body,
    });
    expect(response.status).toBe(200);
    const price = (await stack.gateway.services.catalog.get()).prices.get("gpt-4o-mini");
    const reservation = computeCost({ promptTokens: body.length, completionTokens: 10, cachedTokens: 0 }, price);
    expect(((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("a short answer");
    const row = await logRowOf(token.row.id);
    expect(row).toMatchObject({ status: 200, usageEstimated: true, cost: reservation });
  });

  test("count_tokens with one 300,000-character word answers with the linear count", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    const response = await countTokens(token.secret, JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "a".repeat(300_000) }] }));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-tollgate-estimated")).toBe("true");
    const { input_tokens } = (await response.json()) as { input_tokens: number };
    // A quarter of the word's bytes, plus the chat format's few tokens.
    expect(input_tokens).toBeGreaterThanOrEqual(75_000);
    expect(input_tokens).toBeLessThan(75_020);
  });

  test("/healthz answers while a large count_tokens is being counted, and the count then answers its estimate", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    const body = JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: heavyText(4_000_000) }] });
    let counted = false;
    const counting = countTokens(token.secret, body).then((response) => {
      counted = true;
      return response;
    });
    await waitFor(() => countsInFlight() > 0, "the count on the worker");
    const health = await fetch(`${origin}/healthz`);
    expect(health.status).toBe(200);
    expect(counted).toBe(false);
    const response = await counting;
    expect(response.status).toBe(200);
    expect(response.headers.get("x-tollgate-estimated")).toBe("true");
    // Past the deadline: the linear rule over the body, not a failure.
    expect(await response.json()).toEqual({ input_tokens: Math.ceil(body.length / 4) });
  });

  test("count_tokens over the body limit is refused with 413 in Anthropic's shape", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    const response = await countTokens(token.secret, JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x ".repeat(MAX_BODY_BYTES / 2 + 10) }] }));
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ type: "error", error: { type: "request_too_large", message: expect.any(String) } });
  });
});
