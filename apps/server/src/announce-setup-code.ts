import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SetupCodes } from "@tollgate/admin";
import type { Database } from "@tollgate/db";
import type { Logger } from "@tollgate/gateway/logger";

/** Where the current setup code is written while no administrator exists: `${dataDir}/setup-code`, 0600. */
export function setupCodeFile(dataDir: string): string {
  return join(dataDir, "setup-code");
}

/**
 * At start, in a mode that serves the console: while no administrator exists, prints the first-run setup
 * code in the log and writes it to the data folder (owner-only), so that only whoever runs the server can
 * finish the first run; once one exists, removes the file. Every instance on one database prints the same
 * code (see SetupCodes), so it is found in the log of whichever serves the console.
 */
export async function announceSetupCode(input: { db: Database; setupCodes: SetupCodes; dataDir: string; log: Logger }): Promise<void> {
  const file = setupCodeFile(input.dataDir);
  const code = await input.setupCodes.current(input.db);
  if (code === null) {
    rmSync(file, { force: true });
    return;
  }
  mkdirSync(input.dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(file, `${code}\n`, { mode: 0o600 });
  // writeFileSync's mode applies only to a file it creates.
  chmodSync(file, 0o600);
  input.log("warn", "no administrator yet: open the console and enter this setup code on its first-run page (or run: npm run -s admin -- user create --admin)", {
    setupCode: code,
    file,
  });
}
