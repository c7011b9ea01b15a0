import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { settings, storedResponses } from "@tollgate/db";
import { purgeExpiredResponses } from "../apps/gateway/src/codecs/responses/stored-response-store";
import { eq } from "drizzle-orm";
import OpenAI from "openai";
import { waitFor } from "./helpers/gateway-fixture";
import { type ResponsesStack, stackModels, startResponsesStack } from "./helpers/responses-stack";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let stack: ResponsesStack;
let owner: OpenAI;
let other: OpenAI;
let ownerTokenId: number;

function clientFor(secret: string) {
  return new OpenAI({ apiKey: secret, baseURL: stack.baseURL, maxRetries: 0 });
}

async function storedRow(id: string) {
  const [row] = await stack.database.handle.db.select().from(storedResponses).where(eq(storedResponses.id, id));
  return row;
}

beforeAll(async () => {
  stack = await startResponsesStack();
  const token = await stack.seed.token({ userId: stack.userId });
  ownerTokenId = token.row.id;
  owner = clientFor(token.secret);
  other = clientFor((await stack.seed.token({ userId: stack.userId })).secret);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.stop();
}, SETUP_TIMEOUT_MS);

describe("token rules on /v1/responses", () => {
  test("a model the token may not use is refused with 403, an unknown one with 404", async () => {
    const restricted = clientFor((await stack.seed.token({ userId: stack.userId, allowedModels: [stackModels.claude] })).secret);
    const forbidden = await restricted.responses.create({ model: stackModels.chatOnly, input: "Hi" }).catch((error) => error);
    expect(forbidden).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(forbidden.error.code).toBe("model_not_allowed");
    const unknown = await owner.responses.create({ model: "no-such-model", input: "Hi" }).catch((error) => error);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown.error.code).toBe("model_not_found");
  });

  test("a token whose quota cannot cover the request is refused with 429 and nothing reaches the upstream", async () => {
    await stack.seed.price(stackModels.chatOnly, 100, 100);
    const poor = clientFor((await stack.seed.token({ userId: stack.userId, quotaLimit: 1 })).secret);
    const before = stack.chatOnly.requests.length;
    const refused = await poor.responses.create({ model: stackModels.chatOnly, input: "Hi" }).catch((error) => error);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect(refused.error.code).toBe("insufficient_quota");
    expect(stack.chatOnly.requests.length).toBe(before);
  });

  test("a bad request is a 400 in OpenAI's envelope", async () => {
    const missing = await owner.responses.create({ model: stackModels.chatOnly } as never).catch((error) => error);
    expect(missing).toBeInstanceOf(OpenAI.BadRequestError);
    expect(missing.error).toMatchObject({ param: "input", code: "missing_required_parameter" });
    const badItem = await owner.responses.create({ model: stackModels.chatOnly, input: [{ type: "item_reference", id: "msg_1" }] } as never).catch((error) => error);
    expect(badItem).toBeInstanceOf(OpenAI.BadRequestError);
    expect(badItem.error).toMatchObject({ param: "input[0]", code: "unsupported_parameter" });
  });
});

describe("accounting of /v1/responses streams", () => {
  test("an upstream that reports no usage is billed from the local count, which the final event carries too", async () => {
    stack.chatOnly.enqueue({ kind: "ok", content: "counted by the gateway itself", omitUsage: true });
    const stream = await owner.responses.create({ model: stackModels.chatOnly, input: "Count locally", stream: true });
    let usage: OpenAI.Responses.ResponseUsage | undefined;
    for await (const event of stream) if (event.type === "response.completed") usage = event.response.usage;
    const log = await stack.lastLog(ownerTokenId);
    expect(log).toMatchObject({ endpoint: "responses", usageEstimated: true, status: 200 });
    expect(log.completionTokens).toBeGreaterThan(0);
    expect(usage).toMatchObject({ input_tokens: log.promptTokens, output_tokens: log.completionTokens });
  });

  test("a stream the client abandons cancels the upstream call and is logged 499", async () => {
    stack.chatOnly.enqueue({ kind: "stall-stream", chunksBeforeStall: 3 });
    const controller = new AbortController();
    const response = await fetch(`${stack.baseURL}/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${owner.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: stackModels.chatOnly, input: "Abandon me", stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let received = "";
    while (!received.includes("response.output_text.delta")) received += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await stack.chatOnly.waitForStreamCancel();
    const log = await waitFor(async () => {
      const last = await stack.lastLog(ownerTokenId);
      return last.status === 499 ? last : null;
    }, "the abandoned stream's log row");
    expect(log).toMatchObject({ endpoint: "responses", stream: true, errorCode: "client_closed", usageEstimated: true });
  });
});

describe("stored responses", () => {
  test("GET returns the response to the token that created it; another token gets 404", async () => {
    stack.chatOnly.enqueue({ kind: "ok", content: "Stored answer.", promptTokens: 4, completionTokens: 2 });
    const created = await owner.responses.create({ model: stackModels.chatOnly, input: "Store me", metadata: { case: "get" } });
    const fetched = await owner.responses.retrieve(created.id);
    expect(fetched.id).toBe(created.id);
    expect(fetched.output_text).toBe("Stored answer.");
    expect(fetched.metadata).toEqual({ case: "get" });
    expect(fetched.usage).toEqual(created.usage);
    const items = await owner.responses.inputItems.list(created.id);
    expect(items.data).toHaveLength(1);
    expect(items.data[0]).toMatchObject({ type: "message", role: "user", content: [{ type: "input_text", text: "Store me" }] });
    const foreign = await other.responses.retrieve(created.id).catch((error) => error);
    expect(foreign).toBeInstanceOf(OpenAI.NotFoundError);
    expect(foreign.error.message).toBe(`Response with id '${created.id}' not found.`);
    const row = await storedRow(created.id);
    expect(row).toMatchObject({ tokenId: ownerTokenId, native: false, model: stackModels.chatOnly });
  });

  test("input_items lists a conversation newest first by default, in pages, with OpenAI's cursors", async () => {
    stack.chatOnly.enqueue({ kind: "ok", content: "First answer." });
    const first = await owner.responses.create({ model: stackModels.chatOnly, input: "First question" });
    stack.chatOnly.enqueue({ kind: "ok", content: "Second answer." });
    const second = await owner.responses.create({ model: stackModels.chatOnly, input: "Second question", previous_response_id: first.id });
    const all = await owner.responses.inputItems.list(second.id);
    const texts = all.data.map((item) => ((item as { content: Array<{ text: string }> }).content[0]!.text));
    expect(texts).toEqual(["Second question", "First answer.", "First question"]);
    expect(all.data.map((item) => (item as { role: string }).role)).toEqual(["user", "assistant", "user"]);
    expect((all.data[1] as { content: Array<{ type: string }> }).content[0]!.type).toBe("output_text");
    const ascending = await owner.responses.inputItems.list(second.id, { order: "asc", limit: 2 });
    expect(ascending.data.map((item) => item.id)).toEqual([all.data[2]!.id, all.data[1]!.id]);
    expect(ascending.has_more).toBe(true);
    const next = await owner.responses.inputItems.list(second.id, { order: "asc", limit: 2, after: ascending.data[1]!.id });
    expect(next.data.map((item) => item.id)).toEqual([all.data[0]!.id]);
    expect(next.has_more).toBe(false);
    // The client's auto-pagination walks every page.
    const walked: string[] = [];
    for await (const item of owner.responses.inputItems.list(second.id, { limit: 1 })) walked.push(item.id!);
    expect(walked).toEqual(all.data.map((item) => item.id!));
    const badLimit = await owner.responses.inputItems.list(second.id, { limit: 0 }).catch((error) => error);
    expect(badLimit).toBeInstanceOf(OpenAI.BadRequestError);
    expect(badLimit.error).toMatchObject({ param: "limit" });
  });

  test("previous_response_id of another token, or unknown, is a 404 in OpenAI's shape", async () => {
    const created = await owner.responses.create({ model: stackModels.chatOnly, input: "Mine" });
    for (const [caller, id] of [
      [other, created.id],
      [owner, "resp_unknown"],
    ] as const) {
      const refused = await caller.responses.create({ model: stackModels.chatOnly, previous_response_id: id, input: "Next" }).catch((error) => error);
      expect(refused).toBeInstanceOf(OpenAI.NotFoundError);
      expect(refused.error).toMatchObject({
        message: `Previous response with id '${id}' not found.`,
        type: "invalid_request_error",
        param: "previous_response_id",
      });
    }
  });

  test("DELETE removes it for its token only and answers OpenAI's deletion object", async () => {
    const created = await owner.responses.create({ model: stackModels.chatOnly, input: "Delete me" });
    const foreign = await other.responses.delete(created.id).catch((error) => error);
    expect(foreign).toBeInstanceOf(OpenAI.NotFoundError);
    const response = await fetch(`${stack.baseURL}/responses/${created.id}`, { method: "DELETE", headers: { authorization: `Bearer ${owner.apiKey}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: created.id, object: "response", deleted: true });
    expect(await owner.responses.retrieve(created.id).catch((error) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await storedRow(created.id)).toBeUndefined();
  });

  test("store: false keeps nothing", async () => {
    const created = await owner.responses.create({ model: stackModels.chatOnly, input: "Forget me", store: false });
    expect((created as unknown as { store: boolean }).store).toBe(false);
    expect(await owner.responses.retrieve(created.id).catch((error) => error)).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("a streamed response is stored once its stream has ended", async () => {
    const stream = await owner.responses.create({ model: stackModels.chatOnly, input: "Stream and store", stream: true });
    let id = "";
    for await (const event of stream) if (event.type === "response.completed") id = event.response.id;
    expect((await owner.responses.retrieve(id)).status).toBe("completed");
  });

  test("an expired response is never served and the purge deletes it", async () => {
    const created = await owner.responses.create({ model: stackModels.chatOnly, input: "Expire me" });
    await owner.responses.retrieve(created.id);
    await stack.database.handle.db.update(storedResponses).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(storedResponses.id, created.id));
    expect(await owner.responses.retrieve(created.id).catch((error) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    const followUp = await owner.responses.create({ model: stackModels.chatOnly, previous_response_id: created.id, input: "Next" }).catch((error) => error);
    expect(followUp).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await purgeExpiredResponses(stack.database.handle.db)).toBeGreaterThanOrEqual(1);
    expect(await storedRow(created.id)).toBeUndefined();
  });

  test("the retention is the responses_retention_days setting (default 30 days)", async () => {
    const day = 24 * 60 * 60 * 1000;
    const before = await owner.responses.create({ model: stackModels.chatOnly, input: "Default retention" });
    await owner.responses.retrieve(before.id);
    const defaultRow = (await storedRow(before.id))!;
    expect(Math.round((defaultRow.expiresAt.getTime() - defaultRow.createdAt.getTime()) / day)).toBe(30);
    await stack.database.handle.db.insert(settings).values({ key: "responses_retention_days", value: 2 });
    await waitFor(async () => (await stack.gateway.services.settings.get()).responsesRetentionDays === 2, "the new retention setting");
    const after = await owner.responses.create({ model: stackModels.chatOnly, input: "Short retention" });
    await owner.responses.retrieve(after.id);
    const row = (await storedRow(after.id))!;
    expect(Math.round((row.expiresAt.getTime() - row.createdAt.getTime()) / day)).toBe(2);
  });
});
