import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mcpServers, teams, tokens } from "@tollgate/db";
import { createSecretBox } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import type { Page } from "../../apps/console/test-support/chromium";
import { type FakeMcpServer, startFakeMcpServer } from "../helpers/fake-mcp-server";
import { freshDatabase, type FreshDatabase } from "../helpers/fresh-database";
import { seeder, TEST_SECRET, waitFor } from "../helpers/gateway-fixture";
import { type BrowserConsole, startBrowserConsole } from "./browser-console";

// A ceiling for a whole browser session, not a tuned timing: every step waits for a condition.
setDefaultTimeout(120_000);

let database: FreshDatabase;
let browserConsole: BrowserConsole;
let page: Page;
let upstream: FakeMcpServer;

beforeAll(async () => {
  database = await freshDatabase();
  upstream = await startFakeMcpServer({ name: "kb" });
  browserConsole = await startBrowserConsole(database);
  page = browserConsole.page;
});

afterAll(async () => {
  await browserConsole?.close();
  await upstream?.close();
  await database?.drop();
});

describe("the console's MCP servers page", () => {
  test("an administrator adds a server, tests it to see its tools, and grants a token MCP access on the token form", async () => {
    await browserConsole.createFirstAdministrator();
    const [team] = await database.handle.db.insert(teams).values({ name: "kb-team" }).returning({ id: teams.id });

    await page.getByRole("navigation").getByRole("link", { name: "MCP servers", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "MCP servers" }).waitFor();
    await page.getByRole("button", { name: "Add MCP server" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Name").fill("kb");
    await dialog.getByLabel("URL").fill(upstream.url);
    await dialog.getByLabel("Credential", { exact: true }).fill("kb-credential-123");
    await dialog.getByLabel("Price per call (USD)").fill("0.005");
    await dialog.getByRole("group", { name: "Teams" }).getByLabel("kb-team").check();
    await dialog.getByRole("button", { name: "Add MCP server" }).click();
    const row = page.locator('tr[data-mcp-server-name="kb"]');
    await row.waitFor();
    const [stored] = await database.handle.db.select().from(mcpServers).where(eq(mcpServers.name, "kb"));
    expect(stored).toMatchObject({ url: upstream.url, pricePerCall: 5000, groups: [], teams: [team!.id] });
    expect(await row.textContent()).toContain("team kb-team");
    expect(stored!.credentialEncrypted).not.toContain("kb-credential-123");

    await row.getByRole("button", { name: "Test" }).click();
    await row.getByTestId("mcp-tools").waitFor();
    expect(await row.getByTestId("mcp-tools").textContent()).toContain("drop_tables");
    expect(upstream.credentials).toContain("Bearer kb-credential-123");

    const seed = seeder(database.handle, await createSecretBox(TEST_SECRET));
    const owner = await seed.user({ name: "agent-owner" });
    const token = await seed.token({ userId: owner.id, name: "agent key" });
    await page.getByRole("navigation").getByRole("link", { name: "Tokens", exact: true }).click();
    const tokenRow = page.locator('tr[data-token-name="agent key"]');
    await tokenRow.waitFor();
    await tokenRow.getByRole("button", { name: "Edit" }).click();
    const access = page.getByTestId("token-mcp-access");
    await access.getByLabel("MCP servers").fill("kb");
    await access.getByLabel("MCP tools").fill("kb__echo, kb__add");
    await access.getByRole("button", { name: "Save MCP access" }).click();
    await access.getByText("MCP access saved.").waitFor();
    const granted = await waitFor(async () => (await database.handle.db.select().from(tokens).where(eq(tokens.id, token.row.id)))[0], "the token row");
    expect(granted).toMatchObject({ mcpServers: ["kb"], mcpTools: ["kb__echo", "kb__add"] });
  });
});
