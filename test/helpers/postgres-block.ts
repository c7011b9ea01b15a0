import { afterAll, beforeAll } from "bun:test";
import { usePostgres } from "./fresh-database";
import { SETUP_TIMEOUT_MS } from "./timeouts";

/**
 * What `start` makes, for the tests of the calling file or describe block that need a real Postgres (two
 * instances on one database, a network path to cut): made before them on Postgres (elsewhere those tests
 * skip and nothing is made), stopped after them; read `.current` inside a test.
 */
export function onPostgresForBlock<Stack extends { stop(): Promise<void> }>(start: () => Promise<Stack>): { readonly current: Stack } {
  let stack: Stack | undefined;
  beforeAll(async () => {
    if (usePostgres) stack = await start();
  }, SETUP_TIMEOUT_MS);
  afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);
  return {
    get current() {
      if (!stack) throw new Error("the block's stack is made in beforeAll, on Postgres: read it inside a test");
      return stack;
    },
  };
}
