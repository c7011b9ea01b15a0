import { type DatabaseHandle, INVALIDATION_CHANNEL, listenerPingPayload, parseInvalidation } from "@tollgate/db";
import { sql } from "drizzle-orm";
import type { DatabaseCircuit } from "../database-circuit";
import type { GatewayOptions } from "../gateway-options";
import { defaultEchoTimeoutMs, ListenerCheck } from "../listener-check";
import type { Logger } from "../logger";
import type { InvalidationRouter } from "./invalidation-router";
import type { Job } from "./jobs";

/** The LISTEN subscription that feeds the invalidation router, and its self-check (a NOTIFY to itself). */
export interface InvalidationListener {
  /** null on embedded PGlite (no connection that could stall). */
  listenerCheck: ListenerCheck | null;
  /** Subscribes; resolves once listening. */
  start(): Promise<void>;
  stop(): Promise<void>;
  jobs: Job[];
}

export function createInvalidationListener(input: {
  database: DatabaseHandle;
  circuit: DatabaseCircuit;
  instanceId: string;
  router: InvalidationRouter;
  log: Logger;
  options: Pick<GatewayOptions, "listenerCheckIntervalMs">;
}): InvalidationListener {
  const { database, circuit, instanceId, router, log, options } = input;
  const { reconnectListeners } = database;
  const listenerCheck = reconnectListeners
    ? new ListenerCheck({
        intervalMs: options.listenerCheckIntervalMs,
        echoTimeoutMs: defaultEchoTimeoutMs(options.listenerCheckIntervalMs),
        send: (sequence) =>
          circuit.run(() => database.db.execute(sql`select pg_notify(${INVALIDATION_CHANNEL}, ${listenerPingPayload(instanceId, sequence)})`), [20]),
        reconnect: () => reconnectListeners.call(database),
        log,
      })
    : null;
  let unlisten: (() => Promise<void>) | null = null;
  return {
    listenerCheck,
    async start() {
      unlisten = await database.listen(INVALIDATION_CHANNEL, {
        onNotify(payload) {
          const message = parseInvalidation(payload);
          if (!message) return;
          // A ping is this listener's own business: only the echo of this instance's check counts.
          if (message.table === "ping") {
            if (message.origin === instanceId && message.id !== undefined) listenerCheck?.heard(message.id);
          } else router.route(message);
        },
        onConnect() {
          // Notifications sent while we were disconnected are lost: start again from the database.
          router.flushAll();
        },
      });
      listenerCheck?.start();
    },
    async stop() {
      listenerCheck?.stop();
      if (unlisten) await unlisten().catch(() => {});
      unlisten = null;
    },
    jobs: listenerCheck ? [{ name: "listener-check", intervalMs: listenerCheck.intervalMs, run: () => listenerCheck.check() }] : [],
  };
}
