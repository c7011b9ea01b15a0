import { sql } from "drizzle-orm";
import { integer, text } from "drizzle-orm/pg-core";

/**
 * The access limits tokens and users share: which models, from which addresses, how fast. On a token they
 * bind that key alone; on a user they bind every token of the user together (those made later too), and a
 * token may narrow them, never widen them. Empty lists and null rates mean no limit at that level.
 */
export function accessLimitColumns() {
  return {
    /** Models that may be called; empty means every model the routing group can reach. */
    allowedModels: text("allowed_models").array().notNull().default(sql`'{}'::text[]`),
    /** Source IPs or CIDR ranges (v4 or v6) calls may come from; empty means any source. */
    allowedIps: text("allowed_ips").array().notNull().default(sql`'{}'::text[]`),
    /** Requests per minute (a user's: counted across all of its tokens together); null means no limit at this level. */
    rpmLimit: integer("rpm_limit"),
    /** Tokens (prompt + completion) per minute (a user's: across all of its tokens); null means no limit at this level. */
    tpmLimit: integer("tpm_limit"),
  };
}
