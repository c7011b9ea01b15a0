import { describe, expect, test } from "bun:test";
import { localResponseCacheStore } from "./response-cache-store";

describe("localResponseCacheStore", () => {
  test("keeps at most its number of entries, the least recently used going first", async () => {
    const store = localResponseCacheStore({ maxEntries: 2, maxEntryBytes: 1024 });
    await store.set("a", "1", 60);
    await store.set("b", "2", 60);
    expect(await store.get("a")).toBe("1");
    await store.set("c", "3", 60);
    expect(await store.get("b")).toBeNull();
    expect(await store.get("a")).toBe("1");
    expect(await store.get("c")).toBe("3");
  });

  test("an entry past its TTL is gone", async () => {
    const store = localResponseCacheStore({ maxEntries: 10, maxEntryBytes: 1024 });
    await store.set("short", "x", 0.001);
    const deadline = Date.now() + 5_000;
    while ((await store.get("short")) !== null && Date.now() < deadline) await Bun.sleep(5);
    expect(await store.get("short")).toBeNull();
  });
});
