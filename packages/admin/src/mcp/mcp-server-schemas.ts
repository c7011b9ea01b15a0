import { mcpTransports } from "@tollgate/db";
import { z } from "zod";
import { apiKeySchema, baseUrlSchema, groupSchema, nameSchema, recordIdSchema, requiredOr, usdSchema } from "../values/value-schemas";

/**
 * An MCP server's name: the namespace of its tools (`name__tool`) and a path segment (`/mcp/{name}`), so
 * lower-case letters, digits and single hyphens, and never `__` (which separates the server from the tool).
 */
export const mcpServerNameSchema = nameSchema
  .refine((value) => /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/.test(value), "Must be 1-64 lower-case letters, digits or hyphens, starting and ending with a letter or digit");

/** A header name for the credential (`authorization` sends it as a bearer token). */
const headerNameSchema = z
  .string({ error: requiredOr("Must be a header name") })
  .trim()
  .toLowerCase()
  .refine((value) => /^[a-z0-9-]{1,100}$/.test(value), "Must be a header name (letters, digits, hyphens)");

/** A stdio server's command line: the program and its arguments, each its own entry. */
const commandSchema = z
  .array(z.string().min(1, "Must not hold an empty argument").max(4096, "Must hold arguments of at most 4096 characters"), { error: "Must be a list: the program, then its arguments" })
  .min(1, "Must name the program")
  .max(64, "Must hold at most 64 arguments");

const mcpServerFields = z.object({
  name: mcpServerNameSchema,
  transport: z.enum(mcpTransports, { error: `Must be one of: ${mcpTransports.join(", ")}` }),
  url: baseUrlSchema.nullable(),
  command: commandSchema.nullable(),
  credentialHeader: headerNameSchema.nullable(),
  /** The credential in plain text (a bearer token or a header value); stored sealed, never returned. */
  credential: apiKeySchema.nullable(),
  /** Groups whose tokens may use the server; empty: every group. */
  groups: z.array(groupSchema, { error: "Must be a list of group names" }).transform((groups) => [...new Set(groups)]),
  /** Teams (ids) whose keys may use the server besides the groups; empty with no groups: everyone. */
  teams: z.array(recordIdSchema, { error: "Must be a list of team ids" }).transform((ids) => [...new Set(ids)]),
  /** Micro-USD per tools/call, from USD text; null: free. */
  pricePerCall: usdSchema.nullable(),
  enabled: z.boolean({ error: "Must be true or false" }),
});

/** What each transport needs: a URL for the HTTP ones, a command for stdio. */
function checkTransportTarget(value: { transport?: string; url?: string | null; command?: readonly string[] | null }, context: z.RefinementCtx): void {
  if (value.transport === undefined) return;
  if (value.transport === "stdio" && (value.command === undefined || value.command === null)) {
    context.addIssue({ code: "custom", path: ["command"], message: "Is required for a stdio server" });
  }
  if (value.transport !== "stdio" && (value.url === undefined || value.url === null)) {
    context.addIssue({ code: "custom", path: ["url"], message: `Is required for a ${value.transport} server` });
  }
}

export const createMcpServerSchema = mcpServerFields
  .partial({ url: true, command: true, credentialHeader: true, credential: true, groups: true, teams: true, pricePerCall: true, enabled: true })
  .extend({ transport: mcpServerFields.shape.transport.default("streamable-http") })
  .superRefine(checkTransportTarget);
export type CreateMcpServerInput = z.infer<typeof createMcpServerSchema>;

export const updateMcpServerSchema = mcpServerFields.partial().extend({ id: recordIdSchema });
export type UpdateMcpServerInput = z.infer<typeof updateMcpServerSchema>;

/** A tool pattern: `server__tool`, or `server__*` for every tool of the server. */
const toolPatternSchema = z
  .string({ error: "Must be server__tool or server__*" })
  .trim()
  .refine((value) => /^[a-z0-9-]+__.+$/.test(value) && value.length <= 300, "Must be server__tool or server__* (a server's name, two underscores, a tool name or *)");

/**
 * A token's MCP access: the servers it may use (`*`: every server its group may use; empty: no MCP access)
 * and the tools (`server__tool`, `server__*`; empty: every tool of those servers).
 */
export const tokenMcpAccessSchema = z.object({
  id: recordIdSchema,
  mcpServers: z
    .array(z.union([z.literal("*"), mcpServerNameSchema]), { error: "Must be a list of MCP server names, or *" })
    .transform((names) => [...new Set(names)])
    .optional(),
  mcpTools: z.array(toolPatternSchema, { error: "Must be a list of server__tool patterns" }).transform((names) => [...new Set(names)]).optional(),
});
export type TokenMcpAccessInput = z.infer<typeof tokenMcpAccessSchema>;
