import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requestLogs } from "@tollgate/db";
import { channelTypeDescriptors, registerProviderAdapter } from "@tollgate/upstream";
import { desc, eq } from "drizzle-orm";
import { type ConsoleUnderTest, rejection, startConsole } from "./console/console-fixture";
import { toyAdapter } from "./fixtures/toy-provider";
import { type FreshDatabase, freshDatabase } from "./helpers/fresh-database";
import { type GatewayUnderTest, seeder, startGateway, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

/**
 * The "add a provider" recipe, walked: a provider is one adapter folder (test/fixtures/toy-provider) and
 * one registry line (registerProviderAdapter below, a line of packages/upstream/src/adapters.ts for a
 * built-in one). Nothing else changes: the admin schemas, the console's form data, model listing and the
 * gateway's chat all take it from the registry.
 */

const TOY_KEY = "toy-secret-key";

interface ToyRequest {
  path: string;
  key: string | null;
  body: Record<string, unknown> | null;
}

/** The toy upstream: a real HTTP server on port 0 that speaks Toy Chat's protocol. */
function startToyUpstream() {
  const requests: ToyRequest[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const key = request.headers.get("x-toy-key");
      const body = request.method === "POST" ? ((await request.json()) as Record<string, unknown>) : null;
      requests.push({ path, key, body });
      if (key !== TOY_KEY) return Response.json({ problem: "unknown key" }, { status: 401 });
      if (path === "/catalog") return Response.json({ names: ["toy-large", "toy-small", "toy-small"] });
      if (path !== "/generate" || !body) return Response.json({ problem: "no such path" }, { status: 404 });
      const text = `echo of ${String(body.prompt).length} characters`;
      if (body.stream !== true) return Response.json({ text, used: { in: 12, out: 5 } });
      const events = ["echo ", "streamed"].map((piece) => `data: ${JSON.stringify({ piece })}\n\n`).join("") + `data: ${JSON.stringify({ used: { in: 12, out: 2 } })}\n\n`;
      return new Response(events, { headers: { "content-type": "text/event-stream" } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, close: () => server.stop(true) };
}

let database: FreshDatabase;
let consoleUnderTest: ConsoleUnderTest;
let gateway: GatewayUnderTest;
let toy: ReturnType<typeof startToyUpstream>;
let unregister: () => void;

beforeAll(async () => {
  // The registry line.
  unregister = registerProviderAdapter(toyAdapter);
  database = await freshDatabase();
  consoleUnderTest = await startConsole({}, database);
  gateway = await startGateway(database.handle);
  toy = startToyUpstream();
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  unregister?.();
  await toy?.close();
  await gateway?.stop();
  await consoleUnderTest?.close();
  await database?.drop();
}, SETUP_TIMEOUT_MS);

describe("a provider added as one adapter folder and one registry line", () => {
  test("is offered by the console with its descriptor, and the admin schema takes it with the settings it declares only", async () => {
    const admin = await consoleUnderTest.signedInUser({ role: "admin" });
    const offered = await admin.caller.channels.types();
    expect(offered.map((descriptor) => descriptor.type)).toEqual(["openai-compatible", "anthropic", "gemini", "azure-openai", "bedrock", "vertex", "toy-chat"]);
    expect(offered.at(-1)).toEqual({
      type: "toy-chat",
      label: "Toy Chat",
      defaultBaseUrl: "https://toy.example",
      settings: { preset: false, apiVersion: false, responsesApi: false, structuredOutput: false, builtInTools: true, region: false, autoCacheBreakpoints: false, project: false, location: false },
      responsesApiDefault: null,
      canListModels: true,
      cannotListModelsReason: null,
    });
    const fields = { name: "toy", type: "toy-chat", baseUrl: toy.url, apiKey: TOY_KEY, models: ["toy-small"] };
    expect((await rejection(admin.caller.channels.create({ ...fields, preset: "openai" }))).fieldErrors?.preset).toEqual(["Applies to types openai-compatible and anthropic only"]);
    expect((await rejection(admin.caller.channels.create({ ...fields, responsesApi: true }))).fieldErrors?.responsesApi).toEqual([
      "Applies to types openai-compatible and azure-openai only",
    ]);
    expect((await rejection(admin.caller.channels.create({ ...fields, type: "toy-chat-2" }))).fieldErrors?.type).toEqual([
      "Must be one of: openai-compatible, anthropic, gemini, azure-openai, bedrock, vertex, toy-chat",
    ]);
    const created = await admin.caller.channels.create(fields);
    expect(created).toMatchObject({ type: "toy-chat", models: ["toy-small"] });
  });

  test("lists its upstream's models and is probed through its own protocol by the console", async () => {
    const admin = await consoleUnderTest.signedInUser({ role: "admin" });
    expect(await admin.caller.channels.fetchModels({ type: "toy-chat", baseUrl: toy.url, apiKey: TOY_KEY })).toEqual({ ok: true, models: ["toy-large", "toy-small"] });
    const channel = (await admin.caller.channels.list()).find((item) => item.type === "toy-chat")!;
    const tested = await admin.caller.channels.test({ id: channel.id });
    expect(tested).toMatchObject({ ok: true, error: null });
    expect(toy.requests.at(-1)).toEqual({ path: "/generate", key: TOY_KEY, body: { model: "toy-small", prompt: "user: ping", limit: 1, stream: false } });
  });

  test("serves chat through the gateway, answered and streamed in OpenAI's format and billed by its usage", async () => {
    const baseUrl = await gateway.listen();
    await waitFor(async () => (await gateway.services.catalog.get()).channelsByModel.get("toy-small")?.length, "the toy channel in the gateway's catalog");
    const seed = seeder(database.handle, gateway.secretBox, [gateway]);
    const token = await seed.token({ userId: (await seed.user()).id });
    const chat = (stream: boolean) =>
      fetch(`${baseUrl}/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${token.secret}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "toy-small", messages: [{ role: "user", content: "hello toy" }], stream }),
      });

    const answered = await chat(false);
    expect(answered.status).toBe(200);
    const completion = (await answered.json()) as { object: string; model: string; choices: { message: { content: string } }[]; usage: Record<string, number> };
    expect(completion).toMatchObject({ object: "chat.completion", model: "toy-small", usage: { prompt_tokens: 12, completion_tokens: 5 } });
    expect(completion.choices[0]!.message.content).toBe("echo of 15 characters");
    expect(toy.requests.at(-1)).toMatchObject({ path: "/generate", key: TOY_KEY, body: { model: "toy-small", prompt: "user: hello toy", stream: false } });

    const streamed = await chat(true);
    expect(streamed.status).toBe(200);
    const text = await streamed.text();
    const chunks = text
      .split("\n\n")
      .filter((event) => event.startsWith("data: {"))
      .map((event) => JSON.parse(event.slice("data: ".length)) as { choices: { delta?: { content?: string } }[] });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? "").join("")).toBe("echo streamed");
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);

    await gateway.services.usage.flush();
    const logged = await database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, token.row.id)).orderBy(desc(requestLogs.id));
    expect(logged.map((row) => [row.status, row.promptTokens, row.completionTokens])).toEqual([
      [200, 12, 2],
      [200, 12, 5],
    ]);
  });

  test("is no longer offered once its registry line is taken out", () => {
    unregister();
    expect(channelTypeDescriptors().map((descriptor) => descriptor.type)).not.toContain("toy-chat");
    unregister = registerProviderAdapter(toyAdapter);
    expect(channelTypeDescriptors().map((descriptor) => descriptor.type)).toContain("toy-chat");
  });
});
