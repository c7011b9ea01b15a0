import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { channels } from "@tollgate/db";
import { channelKeyBinding } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import { type CliHarness, createCliHarness, DATABASE_SETUP_TIMEOUT_MS } from "./cli-test-harness";

const UPSTREAM_KEY = "sk-upstream-0123456789abcdef";

let harness: CliHarness;

beforeAll(async () => {
  harness = await createCliHarness();
}, DATABASE_SETUP_TIMEOUT_MS);

afterAll(() => harness.close());

async function channelRow(id: number) {
  const [row] = await harness.context.db.select().from(channels).where(eq(channels.id, id));
  if (!row) throw new Error(`no channel ${id}`);
  return row;
}

async function addChannel(name: string, ...extra: string[]): Promise<number> {
  const created = await harness.runJson(
    "channel", "add", "--name", name, "--base-url", "https://upstream.example/v1", "--key", UPSTREAM_KEY,
    "--models", "gpt-4o", ...extra,
  );
  return created.id as number;
}

describe("channel add", () => {
  test("stores the key encrypted and the routing settings", async () => {
    const result = await harness.run(
      "channel", "add", "--name", "primary", "--type", "openai-compatible",
      "--base-url", "https://api.example.com/v1/", "--key", UPSTREAM_KEY,
      "--models", "gpt-4o, gpt-4o-mini,gpt-4o", "--map", "gpt-4o=gpt-4o-2024-08-06",
      "--priority", "-3", "--weight", "7", "--group", "default,vip", "--json",
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain(UPSTREAM_KEY);
    const created = JSON.parse(result.stdout);
    expect(created).toMatchObject({
      name: "primary",
      type: "openai-compatible",
      baseUrl: "https://api.example.com/v1",
      models: ["gpt-4o", "gpt-4o-mini"],
      modelMapping: { "gpt-4o": "gpt-4o-2024-08-06" },
      groups: ["default", "vip"],
      priority: -3,
      weight: 7,
      status: "enabled",
      keyMasked: "sk-…cdef",
    });
    const row = await channelRow(created.id);
    expect(row.apiKeyEncrypted).toStartWith("v2:");
    expect(row.apiKeyEncrypted).not.toContain(UPSTREAM_KEY);
    expect(await harness.context.secretBox.decrypt(row.apiKeyEncrypted, channelKeyBinding(created.id))).toBe(UPSTREAM_KEY);
    expect(row).toMatchObject({ baseUrl: "https://api.example.com/v1", priority: -3, weight: 7, groups: ["default", "vip"] });
  });

  test("defaults to the default group, priority 0 and weight 1, and prints no key", async () => {
    const result = await harness.run(
      "channel", "add", "--name", "plain", "--base-url", "http://127.0.0.1:8000", "--key", UPSTREAM_KEY, "--models", "llama",
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("created channel");
    expect(result.stdout).not.toContain(UPSTREAM_KEY);
    const id = Number(/created channel:\s+(\d+)/.exec(result.stdout)?.[1]);
    expect(await channelRow(id)).toMatchObject({
      type: "openai-compatible",
      groups: ["default"],
      priority: 0,
      weight: 1,
      modelMapping: {},
      status: "enabled",
    });
  });

  test("refuses bad arguments without writing anything or repeating the key", async () => {
    const base = ["channel", "add", "--name", "bad", "--key", UPSTREAM_KEY, "--models", "m"];
    const messages = [
      await harness.expectRejected([...base, "--base-url", "ftp://example.com"], "--base-url must be an http:// or https:// URL"),
      await harness.expectRejected([...base, "--base-url", "not a url"], "--base-url must be an http:// or https:// URL"),
      await harness.expectRejected([...base, "--base-url", `https://user:${UPSTREAM_KEY}@example.com`], "must not contain credentials"),
      await harness.expectRejected([...base, "--base-url", "https://example.com?key=1"], "must not have a query"),
      await harness.expectRejected([...base], "--base-url is required"),
      await harness.expectRejected([...base, "--base-url", "https://x.example", "--type", "cohere"], "--type must be one of: openai-compatible, anthropic, gemini, azure-openai, bedrock, vertex"),
      await harness.expectRejected([...base, "--base-url", "https://x.example", "--priority", "1.5"], "--priority must be an integer"),
      await harness.expectRejected([...base, "--base-url", "https://x.example", "--weight", "0"], "--weight must be a positive integer"),
      await harness.expectRejected([...base, "--base-url", "https://x.example", "--map", "other=up"], '--map maps "other"'),
      await harness.expectRejected([...base, "--base-url", "https://x.example", "--map", "m"], "--map must be a comma-separated list"),
      await harness.expectRejected([...base, "--base-url", "https://x.example", "--group", "a,,b"], "--group must be a comma-separated list"),
      await harness.expectRejected([...base, "--base-url", "https://x.example", `--kee=${UPSTREAM_KEY}`], "unknown flag --kee"),
      await harness.expectRejected(["channel", "add", "--name", "bad", "--base-url", "https://x.example", "--models", "m"], "--key is required"),
      await harness.expectRejected(["channel", "add", "--name", "bad", "--base-url", "https://x.example", "--key", UPSTREAM_KEY], "--models is required"),
      await harness.expectRejected(["channel", "add", "--name", "bad", "--base-url", "https://x.example", "--key", UPSTREAM_KEY, "--models", "a,"], "--models must be a comma-separated list"),
    ];
    for (const message of messages) expect(message).not.toContain(UPSTREAM_KEY);
  });
});

describe("channel list", () => {
  test("shows a masked key and never the key itself", async () => {
    await addChannel("listed");
    const human = await harness.run("channel", "list");
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toMatch(/^ID\s+NAME\s+STATUS/);
    expect(human.stdout).toContain("sk-…cdef");
    expect(human.stdout).not.toContain("sk-u");
    const json = await harness.run("channel", "list", "--json");
    for (const output of [human.stdout, json.stdout]) {
      expect(output).not.toContain(UPSTREAM_KEY);
      expect(output).not.toContain("v2:");
    }
    const listed = JSON.parse(json.stdout) as { name: string; keyMasked: string | null }[];
    expect(listed.find((channel) => channel.name === "listed")?.keyMasked).toBe("sk-…cdef");
    expect(listed.map((channel) => channel.name)).toEqual(
      (await harness.context.db.select().from(channels).orderBy(channels.id)).map((row) => row.name),
    );
  });

  test("says so when a key cannot be decrypted with this secret", async () => {
    const [row] = await harness.context.db
      .insert(channels)
      .values({ name: "foreign", baseUrl: "https://x.example", apiKeyEncrypted: "v1:AAAAAAAAAAAAAAAAAAAAAAAAAAAA", models: ["m"] })
      .returning({ id: channels.id });
    const listed = await harness.runJson<{ id: number; keyMasked: string | null }[]>("channel", "list");
    expect(listed.find((channel) => channel.id === row?.id)?.keyMasked).toBeNull();
    expect((await harness.run("channel", "list")).stdout).toContain("(cannot decrypt)");
  });
});

describe("channel enable, disable and delete", () => {
  test("disable and enable change the status and the update time", async () => {
    const id = await addChannel("toggled");
    const before = await channelRow(id);
    expect(await harness.runJson("channel", "disable", String(id))).toEqual({ id, name: "toggled", status: "disabled" });
    const disabled = await channelRow(id);
    expect(disabled.status).toBe("disabled");
    expect(disabled.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());
    await harness.context.db.update(channels).set({ status: "auto_disabled", statusReason: "401 from upstream" }).where(eq(channels.id, id));
    const enabled = await harness.run("channel", "enable", String(id));
    expect(enabled).toEqual({ exitCode: 0, stdout: `channel ${id} (toggled) enabled\n`, stderr: "" });
    expect(await channelRow(id)).toMatchObject({ status: "enabled", statusReason: null });
  });

  test("delete removes the channel", async () => {
    const id = await addChannel("doomed");
    expect(await harness.runJson("channel", "delete", String(id))).toEqual({ id, name: "doomed", deleted: true });
    expect(await harness.context.db.select().from(channels).where(eq(channels.id, id))).toEqual([]);
  });

  test("unknown or malformed ids are refused", async () => {
    for (const action of ["enable", "disable", "delete"]) {
      await harness.expectRejected(["channel", action, "999999"], "unknown channel id 999999");
      await harness.expectRejected(["channel", action, "abc"], "channel id must be a positive integer");
      await harness.expectRejected(["channel", action], "missing ID");
    }
  });
});

describe("channel add: types, presets and per-channel settings", () => {
  test("--responses-api yes|no is kept in the channel config; any other value is refused", async () => {
    const created = await harness.runJson("channel", "add", "--name", "vl", "--preset", "vllm", "--key", "sk-vllm-test", "--models", "llama", "--responses-api", "yes");
    const [row] = await harness.context.db.select().from(channels).where(eq(channels.id, created.id as number));
    expect(row!.config).toEqual({ preset: "vllm", responsesApi: true });
    const refused = await harness.run("channel", "add", "--name", "x", "--preset", "openai", "--key", "k-12345678", "--models", "m", "--responses-api", "maybe");
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("--responses-api");
    const misplaced = await harness.run("channel", "add", "--name", "x", "--type", "anthropic", "--base-url", "https://api.anthropic.com", "--key", "k-12345678", "--models", "m", "--responses-api", "no");
    expect(misplaced.exitCode).toBe(2);
  });

  test("--structured-output tool|native is kept in an Anthropic channel's config; other values and types are refused", async () => {
    const created = await harness.runJson("channel", "add", "--name", "cl", "--type", "anthropic", "--base-url", "https://api.anthropic.com", "--key", "sk-ant-test-1", "--models", "claude-sonnet", "--structured-output", "native");
    const [row] = await harness.context.db.select().from(channels).where(eq(channels.id, created.id as number));
    expect(row!.config).toEqual({ structuredOutput: "native" });
    const refused = await harness.run("channel", "add", "--name", "x", "--type", "anthropic", "--base-url", "https://api.anthropic.com", "--key", "k-12345678", "--models", "m", "--structured-output", "schema");
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("--structured-output");
    expect(refused.stderr).toContain('"tool" or "native"');
    const misplaced = await harness.run("channel", "add", "--name", "x", "--preset", "openai", "--key", "k-12345678", "--models", "m", "--structured-output", "tool");
    expect(misplaced.exitCode).toBe(2);
    expect(misplaced.stderr).toContain("anthropic and vertex only");
  });

  test("a vertex channel takes a service-account JSON key, --project and --location; a key that is not one is refused without being echoed", async () => {
    const serviceAccountKey = JSON.stringify(
      {
        type: "service_account",
        project_id: "acme-ai",
        private_key_id: "0123abcd",
        private_key: "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n",
        client_email: "gateway@acme-ai.iam.gserviceaccount.com",
        token_uri: "https://oauth2.googleapis.com/token",
      },
      null,
      2,
    );
    const vertex = ["channel", "add", "--name", "vx", "--type", "vertex", "--base-url", "https://aiplatform.googleapis.com", "--models", "gemini-2.5-flash"];
    const created = await harness.runJson(...vertex, "--key", serviceAccountKey, "--project", "acme-ai", "--location", "europe-west4");
    const row = await channelRow(created.id as number);
    expect(row.config).toEqual({ project: "acme-ai", location: "europe-west4" });
    expect(created).toMatchObject({ project: "acme-ai", location: "europe-west4" });
    expect(JSON.stringify(created)).not.toContain("PRIVATE KEY");
    const refused = await harness.run(...vertex, "--key", "AIzaSyNotAServiceAccountKey");
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("must be a Google service-account JSON key: it is not JSON");
    expect(refused.stderr).not.toContain("AIzaSyNotAServiceAccountKey");
    const badLocation = await harness.run(...vertex, "--key", serviceAccountKey, "--location", "Europe West");
    expect(badLocation.stderr).toContain("--location must be a Google Cloud location");
    const misplaced = await harness.run("channel", "add", "--name", "x", "--preset", "openai", "--key", "k-12345678", "--models", "m", "--project", "acme-ai");
    expect(misplaced.exitCode).toBe(2);
    expect(misplaced.stderr).toContain("vertex only");
    // Other types keep refusing whitespace inside a key.
    const spaced = await harness.run("channel", "add", "--name", "x", "--preset", "openai", "--key", "sk-abc def-12345678", "--models", "m");
    expect(spaced.stderr).toContain("--key must not contain whitespace");
  });

  test("a bedrock channel takes --region (required), calls the region's endpoint without --base-url, and its key must be an access key JSON or an API key", async () => {
    const accessKey = JSON.stringify({ accessKeyId: "AKIAEXAMPLE000000001", secretAccessKey: "example/secret+value" });
    const created = await harness.runJson("channel", "add", "--name", "br", "--type", "bedrock", "--key", accessKey, "--models", "claude", "--region", "eu-west-3");
    const row = await channelRow(created.id as number);
    expect(row.config).toEqual({ region: "eu-west-3" });
    expect(row.baseUrl).toBe("https://bedrock-runtime.eu-west-3.amazonaws.com");
    expect(created.region).toBe("eu-west-3");
    const apiKey = await harness.runJson("channel", "add", "--name", "br2", "--type", "bedrock", "--key", "ABSKZXhhbXBsZS1rZXk=", "--models", "llama", "--region", "us-east-1", "--base-url", "https://vpce-1.bedrock-runtime.us-east-1.vpce.amazonaws.com");
    expect((await channelRow(apiKey.id as number)).baseUrl).toBe("https://vpce-1.bedrock-runtime.us-east-1.vpce.amazonaws.com");
    const noRegion = await harness.run("channel", "add", "--name", "x", "--type", "bedrock", "--key", accessKey, "--models", "m");
    expect(noRegion.exitCode).toBe(2);
    expect(noRegion.stderr).toContain("--region");
    const badRegion = await harness.run("channel", "add", "--name", "x", "--type", "bedrock", "--key", accessKey, "--models", "m", "--region", "Europe");
    expect(badRegion.stderr).toContain("--region must be an AWS region like us-east-1");
    const badKey = await harness.run("channel", "add", "--name", "x", "--type", "bedrock", "--key", '{"accessKeyId":"AKIAEXAMPLE000000001","secret":"oops-value"}', "--models", "m", "--region", "us-east-1");
    expect(badKey.exitCode).toBe(2);
    expect(badKey.stderr).toContain("--key");
    expect(badKey.stderr).toContain("only accessKeyId, secretAccessKey and sessionToken");
    expect(badKey.stderr).not.toContain("oops-value");
    const misplaced = await harness.run("channel", "add", "--name", "x", "--preset", "openai", "--key", "k-12345678", "--models", "m", "--region", "us-east-1");
    expect(misplaced.stderr).toContain("bedrock only");
  });

  test("--auto-cache-breakpoints yes is kept in an Anthropic channel's config and shown; other types refuse it", async () => {
    const created = await harness.runJson(
      "channel", "add", "--name", "cached", "--type", "anthropic", "--base-url", "https://api.anthropic.com", "--key", "sk-ant-test-2", "--models", "claude-haiku",
      "--auto-cache-breakpoints", "yes",
    );
    const [row] = await harness.context.db.select().from(channels).where(eq(channels.id, created.id as number));
    expect(row!.config).toEqual({ autoCacheBreakpoints: true });
    expect(created.autoCacheBreakpoints).toBe(true);
    const misplaced = await harness.run("channel", "add", "--name", "x", "--preset", "openai", "--key", "k-12345678", "--models", "m", "--auto-cache-breakpoints", "yes");
    expect(misplaced.exitCode).toBe(2);
    expect(misplaced.stderr).toContain("--auto-cache-breakpoints");
    expect(misplaced.stderr).toContain("anthropic only");
    const unclear = await harness.run("channel", "add", "--name", "x", "--type", "anthropic", "--base-url", "https://api.anthropic.com", "--key", "k-12345678", "--models", "m", "--auto-cache-breakpoints", "maybe");
    expect(unclear.exitCode).toBe(2);
  });

  test("--builtin-tool tool=USD allows built-in tools at a price per call (micro-USD in the config); unknown tools and bad prices are refused", async () => {
    const created = await harness.runJson(
      "channel", "add", "--name", "oa", "--preset", "openai", "--key", "sk-openai-test", "--models", "gpt-4o",
      "--builtin-tool", "web_search=0.01, file_search=0.0025",
    );
    const [row] = await harness.context.db.select().from(channels).where(eq(channels.id, created.id as number));
    expect(row!.config).toEqual({ preset: "openai", builtInTools: { web_search: { pricePerCall: 10_000 }, file_search: { pricePerCall: 2_500 } } });
    expect(created.builtInTools).toEqual({ web_search: 10_000, file_search: 2_500 });
    for (const value of ["browse=0.01", "web_search=-1", "web_search=free", "web_search"]) {
      const refused = await harness.run("channel", "add", "--name", "x", "--preset", "openai", "--key", "k-12345678", "--models", "m", "--builtin-tool", value);
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain("--builtin-tool");
    }
  });

  test("a preset fills the base URL and is kept in the channel config", async () => {
    const created = await harness.runJson("channel", "add", "--name", "ds", "--preset", "deepseek", "--key", "sk-deepseek-test", "--models", "deepseek-chat", "--idle-timeout-ms", "30000");
    const [row] = await harness.context.db.select().from(channels).where(eq(channels.id, created.id as number));
    expect(row!.baseUrl).toBe("https://api.deepseek.com/v1");
    expect(row!.config).toEqual({ preset: "deepseek", idleTimeoutMs: 30000 });
  });

  test("native types and an azure api-version are accepted; misplaced options are refused", async () => {
    const azure = await harness.runJson("channel", "add", "--name", "az", "--type", "azure-openai", "--base-url", "https://example.openai.azure.com", "--key", "azure-key-123", "--models", "gpt-4o", "--map", "gpt-4o=my-deployment", "--api-version", "2024-10-21");
    const [row] = await harness.context.db.select().from(channels).where(eq(channels.id, azure.id as number));
    expect(row).toMatchObject({ type: "azure-openai", config: { apiVersion: "2024-10-21" } });
    const wrongPreset = await harness.run("channel", "add", "--name", "x", "--type", "anthropic", "--preset", "deepseek", "--key", "k-12345678", "--models", "m");
    expect(wrongPreset.exitCode).toBe(2);
    const unknownPreset = await harness.run("channel", "add", "--name", "x", "--preset", "nope", "--key", "k-12345678", "--models", "m");
    expect(unknownPreset.exitCode).toBe(2);
    expect(unknownPreset.stderr).toContain("--preset must be one of");
  });
});
