import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mcpServerCredentialBinding } from "@tollgate/shared";
import { mcpServers, tokens } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type FakeMcpServer, startFakeMcpServer } from "../../../test/helpers/fake-mcp-server";
import { type CliHarness, createCliHarness, DATABASE_SETUP_TIMEOUT_MS } from "./cli-test-harness";

const CREDENTIAL = "mcp-upstream-credential-123456";

let harness: CliHarness;
let upstream: FakeMcpServer;

beforeAll(async () => {
  harness = await createCliHarness();
  upstream = await startFakeMcpServer({ name: "docs" });
}, DATABASE_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await upstream?.close();
  await harness?.close();
});

describe("mcp add, list, test, remove", () => {
  test("add stores the credential sealed and never prints it; list shows the server; test lists its tools; remove deletes it", async () => {
    const added = await harness.run("mcp", "add", "--name", "docs", "--url", upstream.url, "--credential", CREDENTIAL, "--price-per-call", "0.01", "--json");
    expect(added.exitCode).toBe(0);
    expect(added.stdout).not.toContain(CREDENTIAL);
    const created = JSON.parse(added.stdout);
    expect(created).toMatchObject({ name: "docs", transport: "streamable-http", url: upstream.url, pricePerCall: 10_000, groups: [], enabled: true });
    const [row] = await harness.context.db.select().from(mcpServers).where(eq(mcpServers.id, created.id));
    expect(row!.credentialEncrypted).toStartWith("v2:");
    expect(await harness.context.secretBox.decrypt(row!.credentialEncrypted!, mcpServerCredentialBinding(created.id))).toBe(CREDENTIAL);

    const listed = await harness.run("mcp", "list");
    expect(listed.stdout).toContain("docs");
    expect(listed.stdout).not.toContain(CREDENTIAL);

    const tested = await harness.run("mcp", "test", "docs");
    expect(tested.exitCode).toBe(0);
    expect(tested.stdout).toContain("tools:      echo,add,drop_tables");
    expect(upstream.credentials).toContain(`Bearer ${CREDENTIAL}`);

    const removed = await harness.run("mcp", "remove", "docs");
    expect(removed.stdout).toBe(`MCP server ${created.id} (docs) deleted\n`);
    expect(await harness.context.db.select().from(mcpServers)).toEqual([]);
  });

  test("a name that cannot namespace tools, and a stdio server without a command, are refused", async () => {
    await harness.expectRejected(["mcp", "add", "--name", "Bad__Name", "--url", upstream.url], "--name must be 1-64 lower-case letters");
    await harness.expectRejected(["mcp", "add", "--name", "local", "--transport", "stdio"], "--command is required for a stdio server");
  });

  test("add --teams opens the server to the named teams by id, and an unknown team is refused", async () => {
    const team = await harness.runJson<{ id: number }>("team", "create", "--name", "mcp-team");
    const added = await harness.runJson<{ teams: number[]; groups: string[] }>("mcp", "add", "--name", "team-docs", "--url", upstream.url, "--teams", `mcp-team,${team.id}`);
    expect(added).toMatchObject({ teams: [team.id], groups: [] });
    expect((await harness.run("mcp", "list")).stdout).toContain(`team:${team.id}`);
    await harness.expectRejected(["mcp", "add", "--name", "team-docs-2", "--url", upstream.url, "--teams", "no-such-team"], "unknown team");
  });

  test("test of an unreachable server fails with exit code 1 and the reason", async () => {
    await harness.run("mcp", "add", "--name", "gone", "--url", "http://127.0.0.1:9/mcp");
    const tested = await harness.run("mcp", "test", "gone");
    expect(tested.exitCode).toBe(1);
    expect(tested.stderr).toContain("MCP server gone failed its test");
  });
});

describe("token update --mcp-servers --mcp-tools", () => {
  test("grants a token MCP servers and tools, and none takes them away", async () => {
    const user = await harness.runJson<{ id: number }>("user", "create", "--name", "mcp-owner");
    const token = await harness.runJson<{ id: number }>("token", "create", "--user", String(user.id), "--name", "agent");
    const granted = await harness.runJson("token", "update", String(token.id), "--mcp-servers", "docs,github", "--mcp-tools", "docs__*,github__create_issue");
    expect(granted).toEqual({ id: token.id, mcpServers: ["docs", "github"], mcpTools: ["docs__*", "github__create_issue"] });
    const [row] = await harness.context.db.select().from(tokens).where(eq(tokens.id, token.id));
    expect(row).toMatchObject({ mcpServers: ["docs", "github"], mcpTools: ["docs__*", "github__create_issue"] });
    await harness.run("token", "update", String(token.id), "--mcp-servers", "none", "--mcp-tools", "none");
    const [cleared] = await harness.context.db.select().from(tokens).where(eq(tokens.id, token.id));
    expect(cleared).toMatchObject({ mcpServers: [], mcpTools: [] });
    await harness.expectRejected(["token", "update", String(token.id), "--mcp-tools", "create_issue"], "--mcp-tools");
  });
});
