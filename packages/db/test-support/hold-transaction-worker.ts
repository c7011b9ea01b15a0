// A thread that opens a transaction on a shared embedded database and never ends it; the test terminates it.
import { sql } from "drizzle-orm";
import { openSharedPglite, type SharedPglite } from "../src/client";

declare const self: Worker;

self.onmessage = (event: MessageEvent<SharedPglite>) => {
  const handle = openSharedPglite(event.data);
  void handle.db.transaction(async (transaction) => {
    await transaction.execute(sql`insert into users (name) values ('held-by-a-dead-thread')`);
    self.postMessage("holding");
    await new Promise(() => {});
  });
};
