import { sql } from "drizzle-orm";
import type { GatewayServices } from "../gateway-services";

/** GET /healthz: the process is alive and serving HTTP. */
export function handleHealth(): Response {
  return Response.json({ status: "ok" });
}

/**
 * GET /readyz: ready for traffic when the database answers and the channel catalog is loaded. While the
 * database is down the gateway still serves cached tokens, but a load balancer should prefer ready instances.
 */
export async function handleReadiness(services: Pick<GatewayServices, "catalog" | "database" | "usage" | "options">): Promise<Response> {
  const withinTwoSeconds = (work: Promise<unknown>) =>
    Promise.race([work, Bun.sleep(2000).then(() => Promise.reject(new Error("timeout")))]).then(
      () => true,
      () => false,
    );
  // After a reconnect the caches were flushed; asking for the catalog reloads it.
  const catalog = services.catalog.get();
  const [database, caches] = await Promise.all([
    withinTwoSeconds(services.database.db.execute(sql`select 1`)),
    catalog instanceof Promise ? withinTwoSeconds(catalog) : Promise.resolve(true),
  ]);
  // Usage that cannot be written for a while (a database refusing every write, a full disk on its side)
  // is a reason to take this instance out of rotation even when `select 1` answers.
  const failingSince = services.usage.failingSince;
  const usageWrites = failingSince === null || Date.now() - failingSince < services.options.usageWriteStallMs;
  const ready = database && caches && usageWrites;
  return Response.json(
    { status: ready ? "ready" : "not_ready", database, caches, usageWrites, usageQueueDepth: services.usage.queueDepth },
    { status: ready ? 200 : 503 },
  );
}
