import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { channels } from "@tollgate/db";
import { createSecretBox } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import { runCommand } from "../../apps/cli/src/run-command";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "../helpers/fake-openai-upstream";
import { TEST_SECRET } from "../helpers/gateway-fixture";
import { type ConsoleUnderTest, rejection, startConsole, type SignedInUser } from "./console-fixture";

const STORED_KEY = "sk-stored-upstream-key-0001";
const GIVEN_KEY = "sk-given-in-the-call-0002";
const KEY_REQUIRED = "apiKey is required when the base URL's origin or the type changes";
const METADATA = "Must not be a link-local or cloud metadata address";

let harness: ConsoleUnderTest;
let admin: SignedInUser;
/** Where the channel's key was given for. */
let upstream: FakeOpenAIUpstream;
/** Another address: it must never see the stored key. */
let elsewhere: FakeOpenAIUpstream;

const sawStoredKey = (server: FakeOpenAIUpstream) => server.requests.some((request) => JSON.stringify(request.headers).includes(STORED_KEY));

beforeAll(async () => {
  harness = await startConsole();
  admin = await harness.signedInUser({ name: "root", role: "admin" });
  upstream = await startFakeOpenAIUpstream();
  elsewhere = await startFakeOpenAIUpstream();
}, 30_000);

afterAll(async () => {
  await Promise.all([upstream?.close(), elsewhere?.close()]);
  await harness?.close();
});

describe("a stored key goes only where it was given for", () => {
  test("fetch models with another base URL and no key is refused, and the other address receives nothing", async () => {
    const channel = await admin.caller.channels.create({ name: "kept", baseUrl: upstream.url, apiKey: STORED_KEY, models: ["m"] });
    const refused = await rejection(admin.caller.channels.fetchModels({ id: channel.id, baseUrl: elsewhere.url }));
    expect(refused.code).toBe("BAD_REQUEST");
    expect(refused.fieldErrors).toEqual({ apiKey: [KEY_REQUIRED] });
    expect(elsewhere.requests).toHaveLength(0);
    // Another type at the same address is another protocol: the key goes in another header, so it is asked for too.
    expect((await rejection(admin.caller.channels.fetchModels({ id: channel.id, type: "anthropic" }))).fieldErrors).toEqual({ apiKey: [KEY_REQUIRED] });
  });

  test("fetch models with another base URL and a key given in the call sends that key, never the stored one", async () => {
    const [channel] = await harness.database.handle.db.select({ id: channels.id }).from(channels).where(eq(channels.name, "kept"));
    const result = await admin.caller.channels.fetchModels({ id: channel!.id, baseUrl: elsewhere.url, apiKey: GIVEN_KEY });
    expect(result.ok).toBe(true);
    expect(elsewhere.requests.at(-1)!.headers.authorization).toBe(`Bearer ${GIVEN_KEY}`);
    expect(sawStoredKey(elsewhere)).toBe(false);
    // The saved address keeps working with the saved key, including another path on the same origin.
    expect((await admin.caller.channels.fetchModels({ id: channel!.id, baseUrl: `${upstream.url}/` })).ok).toBe(true);
    expect(upstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${STORED_KEY}`);
  });

  test("the CLI's channel models with another base URL and no key is refused without a request", async () => {
    const [channel] = await harness.database.handle.db.select({ id: channels.id }).from(channels).where(eq(channels.name, "kept"));
    const context = { db: harness.database.handle.db, secretBox: await createSecretBox(TEST_SECRET) };
    const before = elsewhere.requests.length;
    const result = await runCommand(["channel", "models", String(channel!.id), "--base-url", elsewhere.url], context);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(KEY_REQUIRED);
    expect(elsewhere.requests.length).toBe(before);
  });

  test("an edit that changes the base URL's origin or the type without the key is refused; Test then still goes to the stored address", async () => {
    const channel = await admin.caller.channels.create({ name: "moved", baseUrl: upstream.url, apiKey: STORED_KEY, models: ["m"] });
    const moved = await rejection(admin.caller.channels.update({ id: channel.id, baseUrl: elsewhere.url }));
    expect(moved).toMatchObject({ code: "BAD_REQUEST", message: KEY_REQUIRED, fieldErrors: { apiKey: [KEY_REQUIRED] } });
    const retyped = await rejection(admin.caller.channels.update({ id: channel.id, type: "anthropic", apiKey: "" }));
    expect(retyped.fieldErrors).toEqual({ apiKey: [KEY_REQUIRED] });
    expect((await admin.caller.channels.byId({ id: channel.id })).baseUrl).toBe(upstream.url);

    await admin.caller.channels.test({ id: channel.id });
    expect(sawStoredKey(elsewhere)).toBe(false);
    expect(upstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${STORED_KEY}`);
  });

  test("with the key given again the origin changes, and a path on the same origin changes without it", async () => {
    const channel = await admin.caller.channels.create({ name: "rekeyed", baseUrl: upstream.url, apiKey: STORED_KEY, models: ["m"] });
    const samePlace = await admin.caller.channels.update({ id: channel.id, baseUrl: `${new URL(upstream.url).origin}/other/v1` });
    expect(samePlace.baseUrl).toBe(`${new URL(upstream.url).origin}/other/v1`);
    const moved = await admin.caller.channels.update({ id: channel.id, baseUrl: elsewhere.url, apiKey: GIVEN_KEY });
    expect(moved).toMatchObject({ baseUrl: elsewhere.url, keyMasked: "sk-…0002" });
    await admin.caller.channels.test({ id: channel.id });
    expect(elsewhere.requests.at(-1)!.headers.authorization).toBe(`Bearer ${GIVEN_KEY}`);
    expect(sawStoredKey(elsewhere)).toBe(false);
  });
});

describe("link-local and cloud metadata addresses", () => {
  test("are refused as a channel's base URL on create, update and fetch models", async () => {
    for (const baseUrl of ["http://169.254.169.254/latest", "http://[fd00:ec2::254]/", "http://[::ffff:169.254.169.254]/v1", "http://metadata.google.internal/v1"]) {
      const created = await rejection(admin.caller.channels.create({ name: "imds", baseUrl, apiKey: GIVEN_KEY, models: ["m"] }));
      expect({ baseUrl, fieldErrors: created.fieldErrors }).toEqual({ baseUrl, fieldErrors: { baseUrl: [METADATA] } });
      const fetched = await rejection(admin.caller.channels.fetchModels({ baseUrl, apiKey: GIVEN_KEY }));
      expect(fetched.fieldErrors).toEqual({ baseUrl: [METADATA] });
    }
    const channel = await admin.caller.channels.create({ name: "local", baseUrl: upstream.url, apiKey: STORED_KEY, models: ["m"] });
    const updated = await rejection(admin.caller.channels.update({ id: channel.id, baseUrl: "http://169.254.169.254/v1", apiKey: GIVEN_KEY }));
    expect(updated.fieldErrors).toEqual({ baseUrl: [METADATA] });
  });

  test("are refused as the spend-alert webhook in the console and the CLI", async () => {
    const refused = await rejection(admin.caller.alerts.updateSettings({ webhookUrl: "http://169.254.169.254/hook" }));
    expect(refused.code).toBe("BAD_REQUEST");
    expect(refused.fieldErrors).toEqual({ webhookUrl: [METADATA] });
    const context = { db: harness.database.handle.db, secretBox: await createSecretBox(TEST_SECRET) };
    const cli = await runCommand(["alerts", "settings", "--webhook-url", "http://[fd00:ec2::254]/hook"], context);
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toContain("link-local or cloud metadata");
    expect((await admin.caller.alerts.settings()).webhookUrl).toBe("");
  });

  test("loopback stays allowed by default; with private networks refused it is refused for channels and the webhook", async () => {
    const strict = await startConsole({ addressPolicy: { allowPrivateNetworks: false } }, harness.database);
    const strictAdmin = await strict.signedInUser({ role: "admin" });
    const created = await rejection(strictAdmin.caller.channels.create({ name: "ollama", baseUrl: "http://127.0.0.1:11434/v1", apiKey: GIVEN_KEY, models: ["m"] }));
    expect(created.fieldErrors?.baseUrl?.[0]).toContain("loopback or private-network");
    const fetched = await rejection(strictAdmin.caller.channels.fetchModels({ baseUrl: "http://localhost:11434/v1", apiKey: GIVEN_KEY }));
    expect(fetched.fieldErrors?.baseUrl?.[0]).toContain("loopback or private-network");
    const webhook = await rejection(strictAdmin.caller.alerts.updateSettings({ webhookUrl: "http://10.0.0.8/hook" }));
    expect(webhook.fieldErrors?.webhookUrl?.[0]).toContain("loopback or private-network");
    const cli = await runCommand(["channel", "add", "--name", "vllm", "--base-url", "http://192.168.1.20:8000/v1", "--key", GIVEN_KEY, "--models", "m"], {
      db: harness.database.handle.db,
      secretBox: await createSecretBox(TEST_SECRET),
      addressPolicy: { allowPrivateNetworks: false },
    });
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toContain("loopback or private-network");
    // The default console took the same loopback address above (the fake upstreams listen on 127.0.0.1).
    expect((await admin.caller.channels.list()).some((channel) => channel.baseUrl === upstream.url)).toBe(true);
    await strict.close();
  });
});
