import { describe, expect, test } from "bun:test";
import { LoadingCache } from "./loading-cache";

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await Bun.sleep(1);
}

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

  test("a value past its max age is served while one background reload replaces it", async () => {
    const rows = new Map([["a", 1]]);
    let time = 0;
    let loads = 0;
    let gate = deferred<void>();
    const cache = new LoadingCache<string, number>(
      async (key) => {
        loads++;
        if (loads > 1) await gate.promise;
        return rows.get(key) ?? null;
      },
      { maxEntries: 10, negativeTtlMs: 60_000, maxAgeMs: 1000, now: () => time },
    );
    expect(await cache.get("a")).toBe(1);
    rows.set("a", 2);
    time = 999;
    expect(cache.get("a")).toBe(1);
    expect(loads).toBe(1);
    // At its age: answered from memory at once, and one reload starts however many requests see it.
    time = 1000;
    expect(cache.get("a")).toBe(1);
    expect(cache.get("a")).toBe(1);
    expect([loads, cache.revalidations]).toEqual([2, 1]);
    gate.resolve();
    await waitFor(() => cache.peek("a") === 2);
    // A reload that finds the row gone replaces the value with an absence.
    rows.delete("a");
    gate = deferred<void>();
    time = 2002;
    expect(cache.get("a")).toBe(2);
    gate.resolve();
    await waitFor(() => cache.peek("a") === null);
    expect(cache.get("a")).toBeNull();
  });

  test("a failed re-validation keeps the value in service and is tried again a max age later", async () => {
    let time = 0;
    let fail = false;
    let loads = 0;
    const cache = new LoadingCache<string, number>(
      async () => {
        loads++;
        if (fail) throw new Error("database away");
        return 5;
      },
      { maxEntries: 10, negativeTtlMs: 1000, maxAgeMs: 1000, now: () => time },
    );
    expect(await cache.get("a")).toBe(5);
    fail = true;
    time = 1001;
    expect(cache.get("a")).toBe(5);
    await waitFor(() => loads === 2);
    await Bun.sleep(0);
    expect(cache.get("a")).toBe(5);
    expect(loads).toBe(2);
    time = 2002;
    expect(cache.get("a")).toBe(5);
    expect(loads).toBe(3);
  });

  test("a re-validation discarded because a counter write raced it is tried again on the next request", async () => {
    let time = 0;
    let gate = deferred<number>();
    let loads = 0;
    const cache = new LoadingCache<string, { used: number }>(
      async () => {
        loads++;
        return loads === 1 ? { used: 1 } : { used: await gate.promise };
      },
      { maxEntries: 10, negativeTtlMs: 1000, maxAgeMs: 1000, now: () => time },
    );
    await cache.get("a");
    time = 1001;
    cache.get("a");
    // The write-behind moves the counter while the reload is under way: the reload may predate it.
    cache.update("a", (value) => (value.used = 5));
    gate.resolve(4);
    await waitFor(() => loads === 2);
    await Bun.sleep(0);
    expect(cache.peek("a")).toEqual({ used: 5 });
    // Not another max age of waiting: the very next request starts a reload.
    gate = deferred<number>();
    cache.get("a");
    expect([loads, cache.revalidations]).toEqual([3, 2]);
    gate.resolve(6);
    await waitFor(() => cache.peek("a")?.used === 6);
  });

  test("unknown keys are remembered as null, apart from values: the oldest absence goes when they are full", async () => {
    let loads = 0;
    const cache = new LoadingCache<string, number>(async (key) => (loads++, key.startsWith("missing") ? null : 1), {
      maxEntries: 2,
      maxAbsentEntries: 2,
      negativeTtlMs: 60_000,
    });
    expect(await cache.get("missing-1")).toBeNull();
    expect(cache.get("missing-1")).toBeNull();
    await cache.get("x");
    await cache.get("y");
    expect(cache.peek("missing-1")).toBeNull();
    expect(loads).toBe(3);
    await cache.get("missing-2");
    await cache.get("missing-3");
    expect(cache.peek("missing-1")).toBeUndefined();
    expect([cache.peek("missing-2"), cache.peek("missing-3")]).toEqual([null, null]);
    expect([cache.size, cache.absentSize]).toEqual([2, 2]);
  });

  test("a flood of unknown keys never evicts a cached value, and an unknown key asked again costs no load", async () => {
    const loaded: string[] = [];
    const cache = new LoadingCache<string, number>(async (key) => (loaded.push(key), key === "valid" ? 42 : null), {
      maxEntries: 10,
      maxAbsentEntries: 100,
      negativeTtlMs: 60_000,
    });
    expect(await cache.get("valid")).toBe(42);
    for (let index = 0; index < 1000; index++) expect(await cache.get(`random-${index}`)).toBeNull();
    expect(cache.absentSize).toBe(100);
    loaded.length = 0;
    expect(cache.get("valid")).toBe(42);
    expect(cache.get("random-999")).toBeNull();
    expect(loaded).toEqual([]);
  });

  test("a cached absence ends after negativeTtlMs, and at once when its key is inserted or changed", async () => {
    let clock = 1_000;
    const rows = new Map<string, number>();
    const cache = new LoadingCache<string, number>(async (key) => rows.get(key) ?? null, { maxEntries: 10, negativeTtlMs: 5_000, now: () => clock });
    for (const key of ["a", "b", "c"]) expect(await cache.get(key)).toBeNull();
    for (const key of ["a", "b", "c"]) rows.set(key, 1);
    cache.forgetAbsent("a");
    cache.delete("b");
    expect([cache.get("a") instanceof Promise, cache.get("b") instanceof Promise, cache.get("c")]).toEqual([true, true, null]);
    clock += 5_000;
    expect(await cache.get("c")).toBe(1);
  });
});
