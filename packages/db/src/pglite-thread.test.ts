import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { type DatabaseHandle, openDatabase, openSharedPglite, resultRows } from "./client";
import { isUniqueViolation } from "./database-errors";
import { users } from "./schema";
import { seedDataFolder } from "../../../test/helpers/fresh-database";
import { SETUP_TIMEOUT_MS } from "../../../test/helpers/timeouts";

let handle: DatabaseHandle;
let dataDir: string;

// An embedded folder copied from the suite's migrated template (an initdb and every migration here would
// take seconds): the thread serves a folder as it serves memory:// (client.test.ts opens that one).
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "tollgate-pglite-thread-"));
  await seedDataFolder(dataDir, true);
  handle = await openDatabase({ dataDir });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await handle?.close();
  rmSync(dataDir, { recursive: true, force: true });
}, SETUP_TIMEOUT_MS);

const namesOf = async (db: DatabaseHandle["db"], prefix: string) =>
  (await db.select({ name: users.name }).from(users)).map((row) => row.name).filter((name) => name.startsWith(prefix)).sort();

describe("the embedded database on its own thread", () => {
  test("a transaction commits what its callback wrote, and rolls all of it back when the callback throws", async () => {
    await handle.db.transaction(async (transaction) => {
      await transaction.insert(users).values({ name: "tx-kept-1" });
      await transaction.insert(users).values({ name: "tx-kept-2" });
    });
    const failure = handle.db.transaction(async (transaction) => {
      await transaction.insert(users).values({ name: "tx-lost-1" });
      throw new Error("changed my mind");
    });
    // Awaited, not expect().rejects: that waits on the promise without taking the thread's answers in.
    expect(String(await failure.catch((error: unknown) => error))).toContain("changed my mind");
    expect(await namesOf(handle.db, "tx-")).toEqual(["tx-kept-1", "tx-kept-2"]);
  });

  test("a query outside an open transaction waits for it, and then sees its commit", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const writing = handle.db.transaction(async (transaction) => {
      await transaction.insert(users).values({ name: "wait-inside" });
      await gate;
    });
    await Bun.sleep(20);
    const reading = namesOf(handle.db, "wait-");
    let readDone = false;
    reading.then(() => (readDone = true));
    await Bun.sleep(50);
    expect(readDone).toBe(false);
    release();
    await writing;
    expect(await reading).toEqual(["wait-inside"]);
  });

  test("Postgres' error fields cross the thread: a unique violation is still recognised by its code", async () => {
    await handle.db.insert(users).values({ name: "dup-1" });
    const error = await handle.db
      .insert(users)
      .values({ name: "dup-1" })
      .then(() => null, (caught: unknown) => caught);
    expect(error).not.toBeNull();
    expect(isUniqueViolation(error)).toBe(true);
  });

  test("NOTIFY reaches the listener until it unsubscribes", async () => {
    const heard: string[] = [];
    const unsubscribe = await handle.listen("thread_test", { onNotify: (payload) => heard.push(payload), onConnect: () => {} });
    await handle.execute("select pg_notify('thread_test', 'first')");
    const deadline = Date.now() + 2_000;
    while (heard.length === 0 && Date.now() < deadline) await Bun.sleep(5);
    expect(heard).toEqual(["first"]);
    await unsubscribe();
    await handle.execute("select pg_notify('thread_test', 'second')");
    await Bun.sleep(50);
    expect(heard).toEqual(["first"]);
  });

  test("a shared handle (another thread's way in) reads and writes the same database, and closing it leaves the database open", async () => {
    const shared = openSharedPglite(handle.share!());
    const [created] = await shared.db.insert(users).values({ name: "shared-writer" }).returning();
    const [seen] = await handle.db.select().from(users).where(eq(users.id, created!.id));
    expect(seen?.name).toBe("shared-writer");
    await shared.db.transaction(async (transaction) => {
      await transaction.update(users).set({ name: "shared-renamed" }).where(eq(users.id, created!.id));
    });
    await shared.close();
    const rows = resultRows(await handle.db.execute(sql`select name from users where id = ${created!.id}`));
    expect(rows).toEqual([{ name: "shared-renamed" }]);
  });

  test("a thread that dies in the middle of a transaction does not keep the database locked: its transaction is rolled back", async () => {
    const shared = handle.share!();
    const worker = new Worker(new URL("../test-support/hold-transaction-worker.ts", import.meta.url).href);
    const holding = new Promise((resolve) => (worker.onmessage = resolve));
    worker.postMessage(shared, [shared.port]);
    await holding;
    worker.terminate();
    // Without the rollback this read would wait for PGlite's lock until the 60 s idle limit.
    expect(await namesOf(handle.db, "held-")).toEqual([]);
  });
});
