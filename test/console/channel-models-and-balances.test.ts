import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { balanceLogs, channels, users } from "@tollgate/db";
import { desc, eq } from "drizzle-orm";
import { runCommand } from "../../apps/cli/src/run-command";
import { createSecretBox } from "@tollgate/shared";
import { type FakeAnthropicUpstream, fakeAnthropicModels, startFakeAnthropicUpstream } from "../helpers/fake-anthropic-upstream";
import { type FakeGeminiUpstream, startFakeGeminiUpstream } from "../helpers/fake-gemini-upstream";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "../helpers/fake-openai-upstream";
import { TEST_SECRET } from "../helpers/gateway-fixture";
import { type ConsoleUnderTest, rejection, startConsole, type SignedInUser } from "./console-fixture";
import modelsFixture from "../fixtures/openai/models.json";

const OPENAI_KEY = "sk-upstream-openai-models-0001";
const ANTHROPIC_KEY = "sk-ant-upstream-models-0002";
const GEMINI_KEY = "AIza-upstream-models-0003";

let harness: ConsoleUnderTest;
let admin: SignedInUser;
let alice: SignedInUser;
let openai: FakeOpenAIUpstream;
let anthropic: FakeAnthropicUpstream;
let gemini: FakeGeminiUpstream;

beforeAll(async () => {
  harness = await startConsole();
  admin = await harness.signedInUser({ name: "root", role: "admin" });
  alice = await harness.signedInUser({ name: "alice" });
  openai = await startFakeOpenAIUpstream({ requireApiKey: OPENAI_KEY });
  anthropic = await startFakeAnthropicUpstream({ requireApiKey: ANTHROPIC_KEY, modelsPerPage: 2 });
  gemini = await startFakeGeminiUpstream({ requireApiKey: GEMINI_KEY, modelsPerPage: 2 });
}, 30_000);

afterAll(async () => {
  await Promise.all([openai?.close(), anthropic?.close(), gemini?.close()]);
  await harness?.close();
});

describe("fetch models from upstream", () => {
  test("a saved OpenAI-compatible channel lists the upstream's GET /models ids, sorted, with its stored key", async () => {
    const channel = await admin.caller.channels.create({ name: "openai", baseUrl: openai.url, apiKey: OPENAI_KEY, models: ["placeholder"] });
    const result = await admin.caller.channels.fetchModels({ id: channel.id });
    expect(result).toEqual({ ok: true, models: modelsFixture.data.map((model) => model.id).sort() });
    const request = openai.requests.at(-1)!;
    expect([request.method, request.path, request.headers.authorization]).toEqual(["GET", "/v1/models", `Bearer ${OPENAI_KEY}`]);
  });

  test("unsaved form values with the key typed in the form are enough; a wrong key is reported without the key", async () => {
    const listed = await admin.caller.channels.fetchModels({ type: "openai-compatible", baseUrl: openai.url, apiKey: OPENAI_KEY });
    expect(listed.ok).toBe(true);
    const refused = await admin.caller.channels.fetchModels({ type: "openai-compatible", baseUrl: openai.url, apiKey: "sk-wrong-key-typed-9999" });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.status).toBe(401);
    expect(refused.error).toContain("The upstream answered 401");
    expect(refused.error).not.toContain("sk-wrong-key-typed-9999");
  });

  test("an upstream that echoes the key in its error has it scrubbed, and one that cannot be reached says so", async () => {
    openai.enqueue({ kind: "error", status: 500, body: { error: { message: `internal failure for key ${OPENAI_KEY}`, type: "server_error", param: null, code: null } } });
    const echoed = await admin.caller.channels.fetchModels({ baseUrl: openai.url, apiKey: OPENAI_KEY });
    expect(echoed.ok).toBe(false);
    expect(JSON.stringify(echoed)).not.toContain(OPENAI_KEY);
    expect(JSON.stringify(echoed)).toContain("internal failure for key ***");
    const unreachable = await admin.caller.channels.fetchModels({ baseUrl: "http://127.0.0.1:1/v1", apiKey: OPENAI_KEY });
    expect(unreachable).toMatchObject({ ok: false, status: null });
    if (!unreachable.ok) expect(unreachable.error).toStartWith("Could not reach the upstream");
  });

  test("Anthropic: GET /v1/models with x-api-key and anthropic-version, following has_more/last_id through every page", async () => {
    anthropic.requests.length = 0;
    const result = await admin.caller.channels.fetchModels({ type: "anthropic", baseUrl: anthropic.url, apiKey: ANTHROPIC_KEY });
    expect(result).toEqual({ ok: true, models: [...fakeAnthropicModels].sort() });
    expect(anthropic.requests.map((request) => request.path)).toEqual(["/v1/models", "/v1/models"]);
    expect(anthropic.requests[1]!.headers["x-api-key"]).toBe(ANTHROPIC_KEY);
    expect(anthropic.requests[1]!.headers["anthropic-version"]).toBe("2023-06-01");
  });

  test("Gemini: models.list with x-goog-api-key, through nextPageToken, without the models/ prefix, only models that generate content", async () => {
    gemini.requests.length = 0;
    const channel = await admin.caller.channels.create({ name: "gemini", type: "gemini", baseUrl: gemini.url, apiKey: GEMINI_KEY, models: ["x"] });
    const result = await admin.caller.channels.fetchModels({ id: channel.id });
    expect(result).toEqual({ ok: true, models: ["gemini-2.0-flash", "gemini-2.5-flash", "gemini-2.5-pro"] });
    expect(gemini.requests.map((request) => `${request.path}${request.search}`)).toEqual(["/v1beta/models?pageSize=1000", "/v1beta/models?pageSize=1000&pageToken=2"]);
    // The key travels in the header, never in the URL (where access logs keep it).
    expect(gemini.requests.every((request) => request.headers["x-goog-api-key"] === GEMINI_KEY && !request.search.includes(GEMINI_KEY))).toBe(true);
    const wrong = await admin.caller.channels.fetchModels({ id: channel.id, apiKey: "AIza-wrong" });
    expect(wrong.ok).toBe(false);
  });

  test("Azure OpenAI says plainly that its deployments cannot be listed with a key", async () => {
    const result = await admin.caller.channels.fetchModels({ type: "azure-openai", baseUrl: "https://example.openai.azure.com", apiKey: "azure-key" });
    expect(result).toMatchObject({ ok: false, unsupported: true });
    if (!result.ok) expect(result.error).toContain("cannot list a resource's deployments");
  });

  test("only an administrator may fetch models; missing values are field errors", async () => {
    expect((await rejection(alice.caller.channels.fetchModels({ baseUrl: openai.url, apiKey: OPENAI_KEY }))).code).toBe("FORBIDDEN");
    const missing = await rejection(admin.caller.channels.fetchModels({}));
    expect(missing.code).toBe("BAD_REQUEST");
    expect(Object.keys(missing.fieldErrors ?? {}).sort()).toEqual(["apiKey", "baseUrl"]);
    expect((await rejection(admin.caller.channels.fetchModels({ id: 999_999 }))).code).toBe("NOT_FOUND");
  });

  test("the CLI lists a saved channel's models one per line, and reports an upstream refusal with exit code 1", async () => {
    const secretBox = await createSecretBox(TEST_SECRET);
    const context = { db: harness.database.handle.db, secretBox };
    const [row] = await harness.database.handle.db.select({ id: channels.id }).from(channels).where(eq(channels.name, "openai"));
    const listed = await runCommand(["channel", "models", String(row!.id)], context);
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout.trim().split("\n")).toEqual(modelsFixture.data.map((model) => model.id).sort());
    const refused = await runCommand(["channel", "models", "--base-url", openai.url, "--key", "sk-cli-wrong-key-1"], context);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("401");
    expect(refused.stderr).not.toContain("sk-cli-wrong-key-1");
  });
});

describe("preset on an existing channel", () => {
  test("an admin sets, changes and clears a channel's preset; other settings stay; non-openai-compatible channels refuse one", async () => {
    const channel = await admin.caller.channels.create({ name: "vendor", baseUrl: "https://api.deepseek.com/v1", apiKey: "sk-vendor-0001", models: ["deepseek-chat"], firstByteTimeoutMs: 5000 });
    expect(channel.preset).toBeNull();
    expect((await admin.caller.channels.update({ id: channel.id, preset: "deepseek" })).preset).toBe("deepseek");
    const [stored] = await harness.database.handle.db.select({ config: channels.config }).from(channels).where(eq(channels.id, channel.id));
    expect(stored!.config).toEqual({ firstByteTimeoutMs: 5000, preset: "deepseek" });
    expect((await admin.caller.channels.update({ id: channel.id, preset: "mistral" })).preset).toBe("mistral");
    expect((await admin.caller.channels.update({ id: channel.id, preset: null })).preset).toBeNull();
    expect((await rejection(admin.caller.channels.update({ id: channel.id, preset: "nope" }))).fieldErrors?.preset?.[0]).toStartWith("Must be one of");
    const anthropicChannel = await admin.caller.channels.create({ name: "claude", type: "anthropic", baseUrl: anthropic.url, apiKey: ANTHROPIC_KEY, models: ["c"] });
    expect((await rejection(admin.caller.channels.update({ id: anthropicChannel.id, preset: "openai" }))).fieldErrors?.preset).toEqual(["Is a preset for openai-compatible channels, not anthropic"]);
  });
});

describe("per-channel switches: Responses API and structured output", () => {
  test("an admin sets them on create, changes and clears them on edit; other settings stay; misplaced ones are refused", async () => {
    const vendor = await admin.caller.channels.create({ name: "vllm-box", preset: "vllm", apiKey: "sk-vllm-0001", models: ["llama"], responsesApi: true });
    expect(vendor).toMatchObject({ preset: "vllm", responsesApi: true, structuredOutput: null });
    expect((await admin.caller.channels.update({ id: vendor.id, responsesApi: false })).responsesApi).toBe(false);
    const [stored] = await harness.database.handle.db.select({ config: channels.config }).from(channels).where(eq(channels.id, vendor.id));
    expect(stored!.config).toEqual({ preset: "vllm", responsesApi: false });
    // Omitted keeps it; null goes back to the default.
    expect((await admin.caller.channels.update({ id: vendor.id, name: "vllm-box-2" })).responsesApi).toBe(false);
    expect((await admin.caller.channels.update({ id: vendor.id, responsesApi: null })).responsesApi).toBeNull();
    const claude = await admin.caller.channels.create({ name: "claude-so", type: "anthropic", baseUrl: anthropic.url, apiKey: ANTHROPIC_KEY, models: ["c"], structuredOutput: "native" });
    expect(claude.structuredOutput).toBe("native");
    expect((await admin.caller.channels.update({ id: claude.id, structuredOutput: null })).structuredOutput).toBeNull();
    expect((await rejection(admin.caller.channels.update({ id: claude.id, responsesApi: true }))).fieldErrors?.responsesApi).toEqual([
      "Applies to types openai-compatible and azure-openai only",
    ]);
    expect((await rejection(admin.caller.channels.update({ id: vendor.id, structuredOutput: "tool" }))).fieldErrors?.structuredOutput).toEqual(["Applies to types anthropic and vertex only"]);
    expect((await rejection(admin.caller.channels.update({ id: claude.id, structuredOutput: "schema" as never }))).fieldErrors?.structuredOutput).toEqual(['Must be "tool" or "native"']);
  });
});

describe("a Vertex AI channel's project, location and service-account key", () => {
  const serviceAccountKey = JSON.stringify({
    type: "service_account",
    project_id: "acme-ai",
    private_key: "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n",
    client_email: "gateway@acme-ai.iam.gserviceaccount.com",
  });

  test("an admin sets them on create and clears them on edit; a key that is not a service-account key is refused, on create and on edit, without being echoed", async () => {
    const vertex = await admin.caller.channels.create({
      name: "vertex",
      type: "vertex",
      baseUrl: "https://aiplatform.googleapis.com",
      apiKey: serviceAccountKey,
      models: ["gemini-2.5-flash"],
      project: "acme-ai",
      location: "europe-west4",
    });
    expect(vertex).toMatchObject({ project: "acme-ai", location: "europe-west4" });
    expect(JSON.stringify(vertex)).not.toContain("PRIVATE KEY");
    expect((await admin.caller.channels.update({ id: vertex.id, location: null })).location).toBeNull();
    const [stored] = await harness.database.handle.db.select({ config: channels.config }).from(channels).where(eq(channels.id, vertex.id));
    expect(stored!.config).toEqual({ project: "acme-ai" });
    const refusedCreate = await rejection(
      admin.caller.channels.create({ name: "v2", type: "vertex", baseUrl: "https://aiplatform.googleapis.com", apiKey: '{"client_email":"a@b.c","private_key":"hunter2"}', models: ["m"] }),
    );
    expect(refusedCreate.fieldErrors?.apiKey).toEqual(['The Vertex AI channel\'s key must be a Google service-account JSON key: "private_key" is missing or is not a PEM private key.']);
    const refusedEdit = await rejection(admin.caller.channels.update({ id: vertex.id, apiKey: "AIzaSy-an-api-key" }));
    expect(refusedEdit.fieldErrors?.apiKey?.[0]).toContain("it is not JSON");
    expect(JSON.stringify(refusedEdit)).not.toContain("AIzaSy-an-api-key");
    expect((await rejection(admin.caller.channels.update({ id: vertex.id, project: "Not A Project" }))).fieldErrors?.project?.[0]).toStartWith("Must be a Google Cloud project id");
  });
});

describe("built-in tools a channel allows", () => {
  test("an admin allows them with a USD price per call on create, replaces and clears them on edit; unknown tools and bad prices are refused", async () => {
    const openai = await admin.caller.channels.create({ name: "oa-tools", preset: "openai", apiKey: "sk-openai-0001", models: ["gpt-4o"], builtInTools: { web_search: "0.01" } });
    expect(openai.builtInTools).toEqual({ web_search: 10_000 });
    const [stored] = await harness.database.handle.db.select({ config: channels.config }).from(channels).where(eq(channels.id, openai.id));
    expect(stored!.config).toEqual({ preset: "openai", builtInTools: { web_search: { pricePerCall: 10_000 } } });
    // Omitted keeps them; a new set replaces them; {} or null allows none.
    expect((await admin.caller.channels.update({ id: openai.id, name: "oa-tools-2" })).builtInTools).toEqual({ web_search: 10_000 });
    expect((await admin.caller.channels.update({ id: openai.id, builtInTools: { file_search: "0.0025", code_interpreter: "0.03" } })).builtInTools).toEqual({
      file_search: 2_500,
      code_interpreter: 30_000,
    });
    expect((await admin.caller.channels.update({ id: openai.id, builtInTools: {} })).builtInTools).toEqual({});
    expect((await rejection(admin.caller.channels.update({ id: openai.id, builtInTools: { browse: "0.01" } as never }))).fieldErrors?.builtInTools?.[0]).toStartWith(
      "Must name built-in tools among",
    );
    expect((await rejection(admin.caller.channels.update({ id: openai.id, builtInTools: { web_search: "-1" } }))).fieldErrors?.builtInTools?.[0]).toStartWith(
      "Must be a non-negative amount in USD",
    );
  });
});

describe("subtracting from a balance", () => {
  test("an admin subtracts with a note, recorded in the balance history in the same transaction; not below zero unless allowed", async () => {
    const bob = await admin.caller.users.create({ name: "bob", balance: "2" });
    const lowered = await admin.caller.users.deduct({ id: bob.id, amount: "0.5", reason: "refund reversed" });
    expect(lowered.balance).toBe(1_500_000);
    const [entry] = await harness.database.handle.db.select().from(balanceLogs).where(eq(balanceLogs.userId, bob.id)).orderBy(desc(balanceLogs.id)).limit(1);
    expect(entry).toMatchObject({ amount: -500_000, reason: "refund reversed", actorId: admin.id });

    const tooMuch = await rejection(admin.caller.users.deduct({ id: bob.id, amount: "2", reason: "correction" }));
    expect(tooMuch.code).toBe("BAD_REQUEST");
    expect(tooMuch.fieldErrors?.amount?.[0]).toContain("below zero");
    // Refused as a whole: neither the balance nor the history moved.
    const [after] = await harness.database.handle.db.select({ balance: users.balance }).from(users).where(eq(users.id, bob.id));
    expect(after!.balance).toBe(1_500_000);
    expect(await harness.database.handle.db.select().from(balanceLogs).where(eq(balanceLogs.userId, bob.id))).toHaveLength(1);

    expect((await admin.caller.users.deduct({ id: bob.id, amount: "2", reason: "overdraft granted", allowNegative: true })).balance).toBe(-500_000);
    const history = (await admin.caller.users.byId({ id: bob.id })).balanceLogs;
    expect(history.map((row) => [row.amount, row.reason])).toEqual([
      [-2_000_000, "overdraft granted"],
      [-500_000, "refund reversed"],
    ]);
  });

  test("the note is required, the amount positive, and only an administrator may subtract", async () => {
    const carol = await admin.caller.users.create({ name: "carol", balance: "1" });
    const noNote = await rejection(admin.caller.users.deduct({ id: carol.id, amount: "0.1", reason: "  " }));
    expect(noNote.fieldErrors?.reason).toEqual(["Must say why the balance is lowered"]);
    expect((await rejection(admin.caller.users.deduct({ id: carol.id, amount: "-1", reason: "x" }))).fieldErrors?.amount).toBeDefined();
    expect((await rejection(alice.caller.users.deduct({ id: carol.id, amount: "0.1", reason: "x" }))).code).toBe("FORBIDDEN");
    expect((await rejection(admin.caller.users.deduct({ id: 999_999, amount: "0.1", reason: "x" }))).code).toBe("NOT_FOUND");
  });

  test("the CLI subtracts with --reason and refuses to go below zero without --allow-negative", async () => {
    const secretBox = await createSecretBox(TEST_SECRET);
    const context = { db: harness.database.handle.db, secretBox };
    await admin.caller.users.create({ name: "dave", balance: "1" });
    const refused = await runCommand(["user", "deduct", "dave", "--amount", "5", "--reason", "fix"], context);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("below zero");
    const done = await runCommand(["user", "deduct", "dave", "--amount", "0.25", "--reason", "fix", "--json"], context);
    expect(done.exitCode).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ name: "dave", amount: "-0.250000", balance: "0.750000" });
  });
});
