import type { GatewayServices } from "@tollgate/gateway/gateway-services";
import type { Logger } from "@tollgate/gateway/logger";
import type { Storage } from "./open-storage";

/** What a shutdown stops, in order. */
export interface ShutdownPlan {
  log: Logger;
  /** SHUTDOWN_DRAIN_MS: how long in-flight calls and streams get before they are cut. */
  drainMs: number;
  /** The listening server: stop(false) stops accepting and resolves once in-flight requests are done; stop(true) cuts them. */
  server: { stop(closeActiveConnections?: boolean): Promise<void> };
  /** The gateway's services when this process serves /v1: their calls are billed and their usage written before it exits. */
  services: Pick<GatewayServices, "calls" | "stop"> | null;
  storage: Storage;
  /** Runs first (the admin bridge stops advertising itself). */
  beforeDrain?: () => void;
  /** The console's own background jobs (the audit purge): stopped, and a pass in flight let finish, before the database closes. */
  jobs?: { stop(): Promise<void> } | null;
}

/**
 * On SIGTERM or SIGINT: stop accepting, let in-flight requests and streams finish for up to drainMs, cut
 * what still runs, wait for the cut calls to be accounted, write usage and hand back quota leases (the
 * services' stop), close the database, let the data folder go, exit 0. A second signal changes nothing.
 */
export function stopOnSignals(plan: ShutdownPlan): void {
  const { log, server, services } = plan;
  let stopping = false;
  async function shutdown(signal: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    log("info", services ? "shutting down: finishing in-flight requests and writing usage" : "shutting down", { signal });
    plan.beforeDrain?.();
    const drained = server.stop(false);
    const finished = await Promise.race([drained.then(() => true), Bun.sleep(plan.drainMs).then(() => false)]);
    if (!finished) {
      log("warn", "drain limit reached: cutting the calls still in flight (each is billed for what it produced)", { calls: services?.calls.size ?? 0 });
    }
    await server.stop(true);
    if (services) {
      // A cut stream settles its bill when its relay sees the cancellation: wait for that before the write-behind stops.
      if (!(await services.calls.idle(5_000))) log("warn", "calls still unaccounted after the cut", { calls: services.calls.size });
      await services.stop();
    }
    await plan.jobs?.stop();
    await plan.storage.database.close();
    plan.storage.releaseDataDir();
    log("info", "stopped");
    process.exit(0);
  }
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}
