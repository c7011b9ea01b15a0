import { describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { openDatabase, resultRows } from "./client";

describe("the embedded database", () => {
  test("runs with a small buffer pool, so that the gateway's memory stays small", async () => {
    const handle = await openDatabase({ dataDir: "memory://" });
    try {
      const rows = resultRows(await handle.db.execute(sql`show shared_buffers`));
      expect(rows).toEqual([{ shared_buffers: "16MB" }]);
    } finally {
      await handle.close();
    }
  });
});
