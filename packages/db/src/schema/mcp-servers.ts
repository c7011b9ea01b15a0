import { sql } from "drizzle-orm";
import { bigint, bigserial, boolean, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** How the gateway reaches an upstream MCP server. */
export const mcpTransports = ["streamable-http", "sse", "stdio"] as const;
export type McpTransport = (typeof mcpTransports)[number];

/**
 * An upstream Model Context Protocol server that the gateway's /mcp endpoint puts behind its keys (issue 28).
 * Cached by every gateway instance and evicted through the NOTIFY trigger, like channels.
 */
export const mcpServers = pgTable("mcp_servers", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  /** Unique; the namespace of its tools (`name__tool`) and the path of `/mcp/{name}`: [a-z0-9-], no `__`. */
  name: text("name").notNull().unique(),
  transport: text("transport", { enum: mcpTransports }).notNull().default("streamable-http"),
  /** The server's URL (streamable-http, sse); null for stdio. */
  url: text("url"),
  /** stdio: the command and its arguments, run only when the operator enabled MCP_STDIO_ENABLED. */
  command: text("command").array(),
  /** The header the credential is sent in (default `authorization`, sent as `Bearer <secret>`). */
  credentialHeader: text("credential_header"),
  /** The credential, AES-256-GCM sealed and bound to this row (mcpServerCredentialBinding); null: none. */
  credentialEncrypted: text("credential_encrypted"),
  /** Routing groups whose tokens may use the server; empty: every group. */
  groups: text("groups").array().notNull().default(sql`'{}'::text[]`),
  /** Teams (ids) whose keys may use the server besides the listed groups; empty with empty groups: everyone. */
  teams: bigint("teams", { mode: "number" }).array().notNull().default(sql`'{}'::bigint[]`),
  /** Micro-USD billed per tools/call; null: free. */
  pricePerCall: bigint("price_per_call", { mode: "number" }),
  enabled: boolean("enabled").notNull().default(true),
  /** The gateway stops calling the server until this instant after it failed (written by any instance). */
  cooldownUntil: timestamp("cooldown_until", { withTimezone: true }),
  /** Why the server was last cooled down (no secret: the error's class and status). */
  lastError: text("last_error"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
