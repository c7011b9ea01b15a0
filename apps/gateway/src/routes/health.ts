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
export async function handleReadiness(services: GatewayServices): Promise<Response> {
  let database = false;
  try {
    await Promise.race([
      services.database.db.execute(sql`select 1`),
      new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), 2000)),
    ]);
    database = true;
  } catch {
    database = false;
  }
  const caches = services.catalog.isLoaded;
  const ready = database && caches;
  return Response.json(
    { status: ready ? "ready" : "not_ready", database, caches, usageQueueDepth: services.usage.queueDepth },
    { status: ready ? 200 : 503 },
  );
}
