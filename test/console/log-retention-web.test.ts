import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { getLogRetention } from "../../packages/admin/src/index";
import { freshDatabase, type FreshDatabase } from "../helpers/fresh-database";
import { type BrowserConsole, startBrowserConsole } from "./browser-console";

// A ceiling for a whole browser session, not a tuned timing: every step waits for a condition.
setDefaultTimeout(120_000);

let database: FreshDatabase;
let browserConsole: BrowserConsole;

beforeAll(async () => {
  database = await freshDatabase();
  browserConsole = await startBrowserConsole(database);
});

afterAll(async () => {
  await browserConsole?.close();
  await database?.drop();
});

describe("the request-log retention in the console", () => {
  test("an administrator reads 90 days on the logs page, saves 30, and a value out of range is refused under the field", async () => {
    const { page } = browserConsole;
    await browserConsole.createFirstAdministrator();
    await page.getByRole("navigation").getByRole("link", { name: "Logs", exact: true }).click();
    const form = page.getByTestId("log-retention");
    const days = form.getByLabel("Keep request logs for (days)");
    await form.waitFor();
    await page.waitForFunction(() => (document.querySelector('[data-testid="log-retention"] input[name="days"]') as HTMLInputElement | null)?.value === "90");

    await days.fill("30");
    await form.getByRole("button", { name: "Save" }).click();
    await form.getByRole("status").waitFor();
    expect(await getLogRetention(database.handle.db)).toEqual({ days: 30 });

    await days.fill("-5");
    await form.getByRole("button", { name: "Save" }).click();
    await form.getByText("Must be a whole number of days from 0 (keep every row) to 36500").waitFor();
    expect(await getLogRetention(database.handle.db)).toEqual({ days: 30 });
  });
});
