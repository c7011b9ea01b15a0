// Which tier each test file belongs to, so that `npm run test:unit` answers in seconds while `npm test`
// still runs everything. Plain JavaScript: the bootstrap imports it on Node, before Bun exists.
//
// - unit: a test beside the code that needs no database, no server, no socket and no process; pure.
// - integration: a real database (PGlite or Postgres), fake upstreams on port 0, Redis; in one process.
// - e2e: a browser, or the server or CLI started as a process of their own.
//
// A file's tier follows from where it is, with two short lists for the exceptions, so that no test file
// has to be renamed: everything under test/ is integration unless listed in e2e; a test beside the code is
// unit unless listed below. scripts/test-tiers.test.ts checks that every listed file exists and that no
// unit test reaches a database, a server or a process (through its helpers too), so a new test that
// needs one fails that check until it is listed here.
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";

export const TIERS = ["unit", "integration", "e2e"];

/** Tests that drive a browser or start the server or the CLI as a process. */
export const E2E_FILES = [
  "test/mcp-stdio.test.ts",
  "test/console/mcp-servers-web.test.ts",
  "apps/cli/src/index.test.ts",
  "test/console/e2e.test.ts",
  "test/console/log-retention-web.test.ts",
  "test/console/token-roll-web.test.ts",
  "test/console/teams-web.test.ts",
  "test/first-run-and-data-folder.test.ts",
  "test/gateway-process.test.ts",
  "test/http-hardening.test.ts",
  "test/invalidation.test.ts",
  "test/server-modes.test.ts",
  "test/start-script-signals.test.ts",
  "test/usage-crash.test.ts",
  "apps/server/src/tracing-config.test.ts",
  "test/optional-libraries.test.ts",
];

/** Tests beside the code that need a database, a fake upstream, a socket or Redis. */
export const INTEGRATION_FILES_BESIDE_CODE = [
  "apps/cli/src/mcp.test.ts",
  "packages/upstream/src/mcp/connect-mcp-server.test.ts",
  "apps/cli/src/budgets.test.ts",
  "apps/cli/src/channels.test.ts",
  "apps/cli/src/models.test.ts",
  "apps/cli/src/run-command.test.ts",
  "apps/cli/src/token-roll.test.ts",
  "apps/cli/src/tokens.test.ts",
  "apps/cli/src/response-cache-flags.test.ts",
  "apps/cli/src/users.test.ts",
  "apps/console/src/export/log-query-plans.test.ts",
  "apps/gateway/src/accounting/quota-leases.test.ts",
  "apps/gateway/src/accounting/quota-ledger.test.ts",
  "apps/gateway/src/accounting/usage-writer-thread.test.ts",
  "apps/gateway/src/database-circuit.test.ts",
  "apps/gateway/src/pipeline/failover-with-fake-adapter.test.ts",
  "apps/gateway/src/policy/redis-rate-limiter.test.ts",
  "apps/gateway/src/routing/forward-with-failover.test.ts",
  "apps/gateway/src/settings-cache.test.ts",
  "packages/db/src/client.test.ts",
  "packages/db/src/pglite-thread.test.ts",
  "packages/upstream/src/fetch-upstream.test.ts",
  "packages/upstream/src/list-upstream-models.test.ts",
  "packages/upstream/src/probe-channel.test.ts",
];

const testFileName = /\.test\.tsx?$/;
const skippedFolders = new Set(["node_modules", "dist", ".git", ".tools", "data", "test-artifacts", ".tollgate-test"]);

/** The tier of a test file, by its path from the repository root (forward slashes). */
export function tierOf(path) {
  if (E2E_FILES.includes(path)) return "e2e";
  if (path.startsWith("test/") || INTEGRATION_FILES_BESIDE_CODE.includes(path)) return "integration";
  return "unit";
}

/** Every test file of the repository, as paths from `root` with forward slashes, sorted. */
export function listTestFiles(root) {
  const found = [];
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!skippedFolders.has(entry.name) && !entry.name.startsWith(".")) walk(join(folder, entry.name));
      } else if (testFileName.test(entry.name)) {
        found.push(relative(root, join(folder, entry.name)).split(sep).join("/"));
      }
    }
  };
  walk(root);
  return found.sort();
}

/** The test files of the given tiers, sorted. */
export function testFilesOf(root, tiers) {
  return listTestFiles(root).filter((path) => tiers.includes(tierOf(path)));
}
