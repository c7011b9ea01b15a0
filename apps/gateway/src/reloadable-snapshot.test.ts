import { describe, expect, test } from "bun:test";
import { ReloadableSnapshot } from "./reloadable-snapshot";

/** A loader whose loads the test answers one by one, with the table's contents at the time they read it. */
function controlledLoader() {
  const pending: Array<(value: string) => void> = [];
  let loads = 0;
  return {
    load: () => {
      loads++;
      return new Promise<string>((resolve) => pending.push(resolve));
    },
    answer: (value: string) => pending.shift()!(value),
    get loads() {
      return loads;
    },
  };
}

describe("reloadable snapshot", () => {
  test("a load under way when a change is notified is handed to its waiters but not kept: the next get() loads again", async () => {
    const loader = controlledLoader();
    const snapshot = new ReloadableSnapshot(loader.load);
    const waiting = snapshot.get();
    expect(waiting).toBeInstanceOf(Promise);
    snapshot.invalidate();
    loader.answer("read before the change");
    expect(await waiting).toBe("read before the change");
    const next = snapshot.get();
    expect(next).toBeInstanceOf(Promise);
    expect(loader.loads).toBe(2);
    loader.answer("read after the change");
    expect(await next).toBe("read after the change");
    expect(snapshot.get()).toBe("read after the change");
  });

  test("a background refresh overtaken by a change does not put the old rows back", async () => {
    const loader = controlledLoader();
    const snapshot = new ReloadableSnapshot(loader.load);
    const first = snapshot.get();
    loader.answer("v1");
    await first;
    const refreshing = snapshot.refresh();
    expect(snapshot.get()).toBe("v1");
    snapshot.invalidate();
    loader.answer("v1 again, read before the change");
    await refreshing;
    expect(snapshot.isLoaded).toBe(false);
    const next = snapshot.get();
    loader.answer("v2");
    expect(await next).toBe("v2");
  });

  test("many callers share one load, and a failed refresh keeps the current value", async () => {
    let fail = false;
    let loads = 0;
    const failures: unknown[] = [];
    const snapshot = new ReloadableSnapshot(
      async () => {
        loads++;
        if (fail) throw new Error("database away");
        return loads;
      },
      (error) => failures.push(error),
    );
    const [a, b] = await Promise.all([snapshot.get(), snapshot.get()]);
    expect([a, b, loads]).toEqual([1, 1, 1]);
    fail = true;
    await snapshot.refresh();
    expect(snapshot.get()).toBe(1);
    expect(failures).toHaveLength(1);
  });
});
