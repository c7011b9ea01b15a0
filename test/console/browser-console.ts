import { createSetupCodes, type SetupCodes } from "../../packages/admin/src/index";
import { createSecretBox } from "@tollgate/shared";
import { createChannelProber } from "@tollgate/upstream";
import { createConsole } from "../../apps/console/src/create-console";
import { type Browser, launchChromium, type Page } from "../../apps/console/test-support/chromium";
import { freshDatabase, type FreshDatabase } from "../helpers/fresh-database";
import { TEST_SECRET } from "../helpers/gateway-fixture";
import { ensureWebBuild, webDistDir } from "./build-web";

export interface BrowserConsole {
  database: FreshDatabase;
  page: Page;
  /** The console's address for `path` (e.g. "/tokens"). */
  url(path: string): string;
  /** Creates the first administrator through the setup page and waits for the dashboard. */
  setUp(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The built SPA and the console around a fresh database, served on a port of its own, and a Chromium page
 * (1600x900) that reports the page's errors: what the console's browser tests start from.
 */
export async function startBrowserConsole(): Promise<BrowserConsole> {
  const browser: Browser = await launchChromium();
  await ensureWebBuild();
  const database = await freshDatabase();
  const secretBox = await createSecretBox(TEST_SECRET);
  const setupCodes: SetupCodes = createSetupCodes(TEST_SECRET);
  const consoleApp = createConsole({
    database: database.handle,
    secretBox,
    setupCodes,
    testChannel: createChannelProber(),
    webDistDir,
    clientAddress: () => "127.0.0.1",
  });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      return (await consoleApp.handle(request)) ?? new Response("not found", { status: 404 });
    },
  });
  const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
  page.on("pageerror", (error) => console.error(`[browser] ${error.message}`));
  const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;
  return {
    database,
    page,
    url,
    async setUp() {
      await page.goto(url("/"));
      await page.getByLabel("Setup code").fill((await setupCodes.current(database.handle.db))!);
      await page.getByLabel("Administrator name").fill("root");
      await page.getByLabel("Password", { exact: true }).fill("root-password");
      await page.getByLabel("Repeat the password").fill("root-password");
      await page.getByRole("button", { name: "Create administrator" }).click();
      await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();
    },
    async close() {
      await browser.close();
      await server.stop(true);
      await database.drop();
    },
  };
}
