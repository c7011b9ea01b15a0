import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { requestLogs, teams, users } from "@tollgate/db";
import { createSecretBox } from "@tollgate/shared";
import { createChannelProber } from "@tollgate/upstream";
import { eq } from "drizzle-orm";
import { join } from "node:path";
import { createConsole } from "../../apps/console/src/create-console";
import { createSetupCodes } from "../../packages/admin/src/index";
import { type Browser, launchChromium, type Page } from "../../apps/console/test-support/chromium";
import { freshDatabase, type FreshDatabase } from "../helpers/fresh-database";
import { seeder, TEST_SECRET } from "../helpers/gateway-fixture";
import { startTestOidcProvider, type TestOidcProvider } from "../helpers/test-oidc-provider";
import { ensureWebBuild, webDistDir } from "./build-web";
import { expectRefusedOnField } from "./form-checks";
import { expectFitsViewport } from "./layout-checks";

// A ceiling for a whole browser session, not a tuned timing: every step waits for a condition.
setDefaultTimeout(120_000);

let database: FreshDatabase;
let server: ReturnType<typeof Bun.serve>;
let provider: TestOidcProvider;
let browser: Browser;
let page: Page;
let origin: string;

beforeAll(async () => {
  browser = await launchChromium();
  await ensureWebBuild();
  database = await freshDatabase();
  let consoleApp: ReturnType<typeof createConsole> | null = null;
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      return (await consoleApp?.handle(request)) ?? new Response("not found", { status: 404 });
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  provider = await startTestOidcProvider({
    redirectUri: `${origin}/auth/oidc/callback`,
    postLogoutRedirectUri: `${origin}/login`,
    accounts: { "ada-sub": { email: "ada@example.com", emailVerified: true, username: "ada", groups: ["tollgate-admins", "research"] } },
  });
  consoleApp = createConsole({
    database: database.handle,
    secretBox: await createSecretBox(TEST_SECRET),
    setupCodes: createSetupCodes(TEST_SECRET),
    testChannel: createChannelProber(),
    webDistDir,
    clientAddress: () => "127.0.0.1",
    oidc: {
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      groupsClaim: "groups",
      adminGroups: ["tollgate-admins"],
      displayName: "Example SSO",
      only: true,
      allowHttpIssuer: true,
      providerLogout: true,
    },
  });
  // An administrator exists (no first-run page); the team the provider's group maps to.
  const seed = seeder(database.handle, await createSecretBox(TEST_SECRET));
  const root = await seed.user({ name: "root" });
  await database.handle.db.update(users).set({ role: "admin" }).where(eq(users.name, "root"));
  const [research] = await database.handle.db.insert(teams).values({ name: "Research", oidcGroup: "research", rpmLimit: 120 }).returning({ id: teams.id });
  // One MCP tool call by a Research key, shown on the team's page to its admins.
  const researchKey = await seed.token({ userId: root.id, teamId: research!.id, name: "research agent" });
  await database.handle.db.insert(requestLogs).values({ requestId: "mcp-r1", endpoint: "mcp", model: "papers__search", status: 200, latencyMs: 12, tokenId: researchKey.row.id, userId: root.id });
  page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
  page.on("pageerror", (error) => console.error(`[browser] ${error.message}`));
});

afterAll(async () => {
  await browser?.close();
  await provider?.stop();
  await server?.stop(true);
  await database?.drop();
});

describe("single sign-on and teams in the browser", () => {
  test("the sign-in page offers only the provider's button, on screen at 1280x800 and at 390x844", async () => {
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      const visitor = await browser.newPage({ viewport });
      try {
        await visitor.goto(`${origin}/login`);
        const button = visitor.getByRole("link", { name: "Sign in with Example SSO" });
        await button.waitFor();
        await expectFitsViewport(visitor);
        const box = (await button.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
        expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
        await visitor.screenshot({ path: join(import.meta.dir, "..", "..", "test-artifacts", "screenshots", `50-sso-sign-in-${viewport.width}.png`) });
      } finally {
        await visitor.close();
      }
    }
  });

  test("Sign in with the provider lands an administrator on the dashboard; the Teams pages list the mapped team, its members, and add a team", async () => {
    await page.goto(`${origin}/login`);
    const button = page.getByRole("link", { name: "Sign in with Example SSO" });
    await button.waitFor();
    // OIDC_ONLY: no password form.
    expect(await page.getByLabel("Password", { exact: true }).count()).toBe(0);
    await button.click();
    await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();

    await page.getByRole("navigation").getByRole("link", { name: "Teams", exact: true }).click();
    const table = page.getByTestId("teams-table");
    await table.getByRole("link", { name: "Research" }).click();
    await page.getByRole("heading", { level: 1, name: "Research" }).waitFor();
    const members = page.getByTestId("team-members");
    await members.getByText("ada").waitFor();
    expect(await members.getByText("from single sign-on").count()).toBe(1);
    expect(await page.getByTestId("team-limits").textContent()).toContain("120 requests");
    const mcpUsage = page.getByTestId("team-mcp-usage");
    // The table's head shows before its rows arrive: wait for the row, then read the section.
    await mcpUsage.getByText("search (1)").waitFor();
    expect(await mcpUsage.textContent()).toContain("papers");
    expect(await mcpUsage.textContent()).toContain("search (1)");

    await page.getByRole("navigation").getByRole("link", { name: "Teams", exact: true }).click();
    await page.getByRole("button", { name: "Add team" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Name").fill("Platform");
    await dialog.getByLabel("Budget (USD)").fill("25");
    await dialog.getByLabel("Budget period").selectOption("monthly");
    await dialog.getByLabel("Time zone").fill("America/New_York");
    await dialog.getByLabel("Alert at (%)").fill("75, 100");
    await dialog.getByRole("button", { name: "Add team" }).click();
    await table.getByRole("link", { name: "Platform" }).waitFor();
    const platform = async () => (await database.handle.db.select().from(teams).where(eq(teams.name, "Platform")))[0]!;
    expect(await platform()).toMatchObject({ budgetLimit: 25_000_000, budgetPeriod: "monthly", budgetTimeZone: "America/New_York", alertThresholds: [75, 100] });

    // Edited on the team's page at 1280x800: the form shows the stored zone and thresholds; bad thresholds are refused on their field.
    await page.setViewportSize({ width: 1280, height: 800 });
    await table.getByRole("link", { name: "Platform" }).click();
    await page.getByRole("heading", { level: 1, name: "Platform" }).waitFor();
    await page.getByRole("button", { name: "Edit team" }).click();
    const edit = page.getByRole("dialog");
    expect(await edit.getByLabel("Time zone").inputValue()).toBe("America/New_York");
    expect(await edit.getByLabel("Alert at (%)").inputValue()).toBe("75, 100");
    await edit.getByLabel("Time zone").fill("Asia/Tokyo");
    await edit.getByLabel("Alert at (%)").fill("80, lots");
    await edit.getByRole("button", { name: "Save" }).click();
    await expectRefusedOnField(edit, { label: "Alert at (%)", message: "Must be a list of percentages from 1 to 1000 (at most 10)" }, ["Time zone"]);
    await expectFitsViewport(page);
    expect((await platform()).budgetTimeZone).toBe("America/New_York");
    await edit.getByLabel("Alert at (%)").fill("none");
    await edit.getByRole("button", { name: "Save" }).click();
    await edit.waitFor({ state: "detached" });
    expect(await page.getByTestId("team-budget-settings").textContent()).toBe("periods start at midnight Asia/Tokyo; no alerts");
    expect(await platform()).toMatchObject({ budgetLimit: 25_000_000, budgetPeriod: "monthly", budgetTimeZone: "Asia/Tokyo", alertThresholds: [] });

    // On a phone the team's page is row cards, its MCP usage included, and nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    // Teams is the page already shown: the tap on its link still closes the drawer.
    await page.getByRole("button", { name: "Open menu" }).click();
    await page.getByRole("navigation").getByRole("link", { name: "Teams", exact: true }).click();
    await page.getByRole("navigation").waitFor({ state: "hidden" });
    await page.locator('[data-row-card][data-team-name="Research"]').getByRole("link", { name: "Members & usage" }).click();
    await page.getByRole("heading", { level: 1, name: "Research" }).waitFor();
    await page.locator('[data-testid=team-mcp-usage] [data-row-card]').getByText("search (1)").waitFor();
    await page.locator('[data-testid=team-members] [data-row-card]').getByText("ada").waitFor();
    await expectFitsViewport(page);
  });

  test("Sign out ends the session at the provider too (OIDC_PROVIDER_LOGOUT): the provider confirms, then the browser is back on the sign-in page", async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${origin}/`);
    await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    // The provider's own page (oidc-provider's sign-out confirmation), reached with the ID token as hint.
    await page.waitForURL((url) => url.href.startsWith(`${provider.issuer}/session/end`));
    await page.getByRole("button", { name: "Yes, sign me out" }).click();
    await page.waitForURL(`${origin}/login`);
    await page.getByRole("link", { name: "Sign in with Example SSO" }).waitFor();
    // The console session is gone too.
    expect(await page.evaluate(async () => (await fetch("/trpc/auth.me")).status)).toBe(401);
  });
});
