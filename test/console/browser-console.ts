import { createSetupCodes } from "../../packages/admin/src/index";
import { createSecretBox } from "@tollgate/shared";
import { createChannelProber } from "@tollgate/upstream";
import { createConsole } from "../../apps/console/src/create-console";
import { type Browser, launchChromium, type Page } from "../../apps/console/test-support/chromium";
import type { FreshDatabase } from "../helpers/fresh-database";
import { TEST_SECRET } from "../helpers/gateway-fixture";
import { ensureWebBuild, webDistDir } from "./build-web";

/** The console alone on port 0 (the built SPA) around a database, and one Chromium page for a browser test of a page. */
export interface BrowserConsole {
  baseUrl: string;
  page: Page;
  /** Creates the first administrator on the first-run page (opened at `path`) and waits for the dashboard. */
  createFirstAdministrator(path?: string): Promise<void>;
  close(): Promise<void>;
}

export async function startBrowserConsole(database: FreshDatabase): Promise<BrowserConsole> {
  const browser: Browser = await launchChromium();
  await ensureWebBuild();
  const setupCodes = createSetupCodes(TEST_SECRET);
  const consoleApp = createConsole({
    database: database.handle,
    secretBox: await createSecretBox(TEST_SECRET),
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
  const baseUrl = `http://127.0.0.1:${server.port}`;
  return {
    baseUrl,
    page,
    async createFirstAdministrator(path = "/") {
      await page.goto(`${baseUrl}${path}`);
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
    },
  };
}
