import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FreshDatabase, freshDatabase, usePostgres } from "./helpers/fresh-database";
import { startGateway } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

/** The listener's self-check needs a connection that could stall: Postgres only. */


let database: FreshDatabase;
let spoolDir: string;

beforeAll(async () => {
  database = await freshDatabase();
  spoolDir = mkdtempSync(join(tmpdir(), "tollgate-jobs-"));
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await database.drop();
  rmSync(spoolDir, { recursive: true, force: true });
});

describe("gateway background jobs", () => {
  test("every periodic task is a job on one list: all of them run while the gateway runs, and stop leaves none", async () => {
    const gateway = await startGateway(database.handle, { usageSpoolDir: spoolDir });
    const names = gateway.services.jobs.map((job) => job.name).sort();
    expect(names).toEqual(
      [
        "cache-clock",
        "catalog-and-settings-revalidate",
        ...(usePostgres ? ["listener-check"] : []),
        "mcp-session-prune",
        "orphan-spool-replay",
        "quota-lease-renewal",
        "rate-limit-prune",
        "request-log-retention",
        "spend-alert-delivery",
        "stored-responses-purge",
      ].sort(),
    );
    expect(gateway.services.activeJobs).toBe(names.length);
    await gateway.stop();
    expect(gateway.services.activeJobs).toBe(0);
  });
});
