import { describe, expect, test } from "bun:test";
import { LoadingCache } from "./loading-cache";

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

describe("loading cache", () => {
  test("concurrent misses share one load and the result is cached", async () => {
    let loads = 0;
    const cache = new LoadingCache<string, number>(async () => ++loads, { maxEntries: 10, negativeTtlMs: 1000 });
    const [first, second] = await Promise.all([cache.get("a"), cache.get("a")]);
    expect([first, second, loads]).toEqual([1, 1, 1]);
    expect(cache.get("a")).toBe(1);
  });

  test("a load under way when its key is evicted is returned but not stored", async () => {
    const gate = deferred<number>();
    const cache = new LoadingCache<string, number>(() => gate.promise, { maxEntries: 10, negativeTtlMs: 1000 });
    const pending = cache.get("a");
    cache.delete("a");
    gate.resolve(7);
    expect(await pending).toBe(7);
    expect(cache.peek("a")).toBeUndefined();
  });

  test("an insert under a key forgets only its absence: a cached value stays, a cached null goes", async () => {
    const rows = new Map<string, number>();
    const gates = { early: deferred<number | null>(), late: deferred<number | null>() };
    const cache = new LoadingCache<string, number>(
      async (key) => (key === "early" || key === "late" ? gates[key].promise : (rows.get(key) ?? null)),
      { maxEntries: 10, negativeTtlMs: 60_000 },
    );
    rows.set("in-use", 1);
    expect(await cache.get("in-use")).toBe(1);
    expect(await cache.get("new")).toBeNull();
    // Loads under way when the insert is heard: one read before it (null), one after (the row).
    const readBefore = cache.get("early");
    const readAfter = cache.get("late");

    rows.set("new", 2);
    for (const key of ["in-use", "new", "early", "late"]) cache.forgetAbsent(key);
    gates.early.resolve(null);
    gates.late.resolve(3);
    expect([await readBefore, await readAfter]).toEqual([null, 3]);

    expect(cache.peek("in-use")).toBe(1);
    expect(cache.peek("new")).toBeUndefined();
    expect(cache.peek("early")).toBeUndefined();
    expect(cache.peek("late")).toBe(3);
    expect(await cache.get("new")).toBe(2);
    expect(cache.evictions).toBe(1);
  });

  test("evicting another key does not discard a load", async () => {
    const gate = deferred<number>();
    const cache = new LoadingCache<string, number>(() => gate.promise, { maxEntries: 10, negativeTtlMs: 1000 });
    const pending = cache.get("a");
    cache.delete("b");
    gate.resolve(3);
    await pending;
    expect(cache.peek("a")).toBe(3);
  });

  test("a failed refresh keeps the cached value", async () => {
    let fail = false;
    const cache = new LoadingCache<string, number>(
      async () => {
        if (fail) throw new Error("database away");
        return 5;
      },
      { maxEntries: 10, negativeTtlMs: 1000 },
    );
    await cache.get("a");
    fail = true;
    cache.refresh("a");
    await Bun.sleep(0);
    expect(cache.peek("a")).toBe(5);
  });

  test("unknown keys are remembered as null and the oldest entry goes when full", async () => {
    let loads = 0;
    const cache = new LoadingCache<string, number>(async (key) => (loads++, key === "missing" ? null : 1), { maxEntries: 2, negativeTtlMs: 60_000 });
    expect(await cache.get("missing")).toBeNull();
    expect(cache.get("missing")).toBeNull();
    await cache.get("x");
    await cache.get("y");
    expect(cache.peek("missing")).toBeUndefined();
    expect(loads).toBe(3);
  });
});
