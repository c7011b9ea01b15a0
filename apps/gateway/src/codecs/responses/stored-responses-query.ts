import { errors } from "../../errors";
import type { GatewayServices } from "../../gateway-services";

/**
 * A stored-responses query through the database circuit: while the database is unreachable a follow-up,
 * GET or DELETE answers 503 database_unavailable (retry shortly), never a 500 or a wrong 404.
 */
export async function storedResponsesQuery<Value>(services: GatewayServices, query: () => Promise<Value>): Promise<Value> {
  try {
    return await services.databaseCircuit.run(query, [20]);
  } catch (error) {
    throw errors.databaseUnavailable("Stored responses cannot be reached right now. Retry shortly.", error);
  }
}
