import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

export type { Browser, Locator, Page } from "playwright-core";

/** Debian's Chromium (scripts/install-chromium.sh); Playwright's own browser downloads are not used. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Launches headless Chromium for the console's end-to-end test. It lives here (not in test/) because
 * playwright-core is a dependency of this workspace package; a missing browser is an error, never a skip.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM_PATH}: run scripts/install-chromium.sh (apt-get install chromium) first`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}
