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

  test(
    "a database written out with dumpDataDir starts again in memory from loadDataDir, its rows with it, and apart from the first",
    async () => {
      const folder = mkdtempSync(join(tmpdir(), "tollgate-db-"));
      const tarball = join(folder, "template.tar");
      try {
        const template = await openDatabase({ dataDir: "memory://" });
        try {
          await template.execute("create table kept (value text); insert into kept values ('from the template')");
          await template.dumpDataDir?.(tarball);
        } finally {
          await template.close();
        }
        const first = await openDatabase({ dataDir: "memory://", loadDataDir: tarball });
        const second = await openDatabase({ dataDir: "memory://", loadDataDir: tarball });
        try {
          await first.execute("insert into kept values ('only in the first')");
          expect(resultRows(await first.db.execute(sql`select value from kept order by value`))).toEqual([
            { value: "from the template" },
            { value: "only in the first" },
          ]);
          expect(resultRows(await second.db.execute(sql`select value from kept`))).toEqual([{ value: "from the template" }]);
        } finally {
          await first.close();
          await second.close();
        }
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
    SETUP_TIMEOUT_MS,
  );

  test("loadDataDir is refused for a database in a folder, which keeps its own data", async () => {
    await expect(openDatabase({ dataDir: join(tmpdir(), "never-created"), loadDataDir: "/nowhere.tar" })).rejects.toThrow(
      "loadDataDir starts an in-memory database only",
    );
  });
});
