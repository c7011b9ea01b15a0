import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { tokens } from "@tollgate/db";
import { createSecretBox, hashTokenSecret } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import type { Page } from "../../apps/console/test-support/chromium";
import { freshDatabase, type FreshDatabase } from "../helpers/fresh-database";
import { seeder, TEST_SECRET } from "../helpers/gateway-fixture";
import { type BrowserConsole, startBrowserConsole } from "./browser-console";

// A ceiling for a whole browser session, not a tuned timing: every step waits for a condition.
setDefaultTimeout(120_000);

let database: FreshDatabase;
let browserConsole: BrowserConsole;
let page: Page;

beforeAll(async () => {
  database = await freshDatabase();
  browserConsole = await startBrowserConsole(database);
  page = browserConsole.page;
});

afterAll(async () => {
  await browserConsole?.close();
  await database?.drop();
});

describe("rolling a token's key in the console", () => {
  test("Roll shows the new key once and the row shows the previous key until its grace period ends", async () => {
    await browserConsole.createFirstAdministrator("/tokens");
    const seed = seeder(database.handle, await createSecretBox(TEST_SECRET));
    const owner = await seed.user({ name: "roller" });
    const token = await seed.token({ userId: owner.id, name: "rolled in the browser" });

    await page.getByRole("navigation").getByRole("link", { name: "Tokens", exact: true }).click();
    const row = page.locator('tr[data-token-name="rolled in the browser"]');
    await row.waitFor();
    await row.getByRole("button", { name: "Roll" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Old key keeps working for").selectOption({ label: "1 hour" });
    await dialog.getByRole("button", { name: "Roll key" }).click();
    const secretBox = page.getByTestId("rolled-token-secret");
    await secretBox.waitFor();
    const secret = (await secretBox.textContent())!.trim();
    expect(secret).toMatch(/^sk-[0-9A-Za-z]{48}$/);
    const [stored] = await database.handle.db.select().from(tokens).where(eq(tokens.id, token.row.id));
    expect(stored!.keyHash).toBe(hashTokenSecret(secret));
    expect(stored!.previousKeyExpiresAt!.getTime() - stored!.rolledAt!.getTime()).toBe(3_600_000);
    await page.getByRole("button", { name: "I have stored the key" }).click();
    await row.getByTestId("token-previous-key").waitFor();
    expect(await row.getByTestId("token-previous-key").textContent()).toContain(stored!.previousKeyPrefix!);
    expect(await page.content()).not.toContain(secret);
  });
});
