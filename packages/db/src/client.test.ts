import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openDatabase, resultRows } from "./client";
import { SETUP_TIMEOUT_MS } from "../../../test/helpers/timeouts";

describe("the embedded database", () => {
  // The first PGlite a test process opens compiles its WebAssembly on a new thread: on a busy 2-core machine
  // that alone passed Bun's 5 s default (CI, Postgres run, where no earlier file had opened one).
  test(
    "runs with a small buffer pool, so that the gateway's memory stays small",
    async () => {
      const handle = await openDatabase({ dataDir: "memory://" });
      try {
        const rows = resultRows(await handle.db.execute(sql`show shared_buffers`));
        expect(rows).toEqual([{ shared_buffers: "16MB" }]);
      } finally {
        await handle.close();
      }
    },
    SETUP_TIMEOUT_MS,
  );

  test(
    "a new data folder is created (on a thread of its own, then reopened) and keeps its data for the next open",
    async () => {
      const dataDir = join(mkdtempSync(join(tmpdir(), "tollgate-db-")), "data");
      try {
        const first = await openDatabase({ dataDir });
        await first.execute("create table kept (value text); insert into kept values ('still here')");
        await first.close();
        const second = await openDatabase({ dataDir });
        try {
          expect(resultRows(await second.db.execute(sql`select value from kept`))).toEqual([{ value: "still here" }]);
        } finally {
          await second.close();
        }
      } finally {
        rmSync(join(dataDir, ".."), { recursive: true, force: true });
      }
    },
    SETUP_TIMEOUT_MS,
  );

  test(
    "prepareNew runs once, on the new folder's throwaway thread, and what it made is there for the serving thread",
    async () => {
      const dataDir = join(mkdtempSync(join(tmpdir(), "tollgate-db-")), "data");
      let prepared = 0;
      const prepareNew = async (handle: Awaited<ReturnType<typeof openDatabase>>) => {
        prepared++;
        await handle.execute("create table migrated (value text); insert into migrated values ('from the throwaway')");
      };
      try {
        const first = await openDatabase({ dataDir, prepareNew });
        try {
          expect(prepared).toBe(1);
          expect(resultRows(await first.db.execute(sql`select value from migrated`))).toEqual([{ value: "from the throwaway" }]);
        } finally {
          await first.close();
        }
        // An existing folder is opened as it is.
        const second = await openDatabase({ dataDir, prepareNew });
        await second.close();
        expect(prepared).toBe(1);
      } finally {
        rmSync(join(dataDir, ".."), { recursive: true, force: true });
      }
    },
    SETUP_TIMEOUT_MS,
  );
});
