import {
  createMcpServer,
  createMcpServerSchema,
  deleteMcpServer,
  getMcpServer,
  getTokenMcpAccess,
  idInputSchema,
  listMcpServers,
  mcpServerUsage,
  setTokenMcpAccess,
  testMcpServer,
  teamMcpUsage,
  tokenMcpAccessSchema,
  updateMcpServer,
  updateMcpServerSchema,
} from "@tollgate/admin";
import { adminProcedure, authedProcedure, router } from "../trpc";

/** Upstream MCP servers behind /mcp (packages/admin mcp); credentials go in sealed and come out masked. */
export const mcpRouter = router({
  list: adminProcedure.query(({ ctx }) => listMcpServers(ctx.db, ctx.secretBox)),

  byId: adminProcedure.input(idInputSchema).query(({ ctx, input }) => getMcpServer(ctx.db, ctx.secretBox, input.id)),

  create: adminProcedure.input(createMcpServerSchema).mutation(({ ctx, input }) => createMcpServer(ctx.db, ctx.user, ctx.secretBox, input, ctx.addressPolicy)),

  update: adminProcedure.input(updateMcpServerSchema).mutation(({ ctx, input }) => updateMcpServer(ctx.db, ctx.user, ctx.secretBox, input, ctx.addressPolicy)),

  delete: adminProcedure.input(idInputSchema).mutation(async ({ ctx, input }) => ({ id: (await deleteMcpServer(ctx.db, ctx.user, input.id)).id })),

  /** Connects, initializes and lists the server's tools (the page's Test, and its tools list). */
  test: adminProcedure.input(idInputSchema).mutation(({ ctx, input }) => testMcpServer(ctx.db, ctx.user, ctx.secretBox, input.id, { stdioEnabled: ctx.mcpStdioEnabled })),

  /** Calls, errors, cost and bytes per server and tool over the last 24 hours (request log, endpoint `mcp`). */
  usage: adminProcedure.query(({ ctx }) => mcpServerUsage(ctx.db)),

  /** MCP calls of one team's keys over the last 24 hours: administrators and that team's admins. */
  teamUsage: authedProcedure.input(idInputSchema).query(({ ctx, input }) => teamMcpUsage(ctx.db, ctx.user, input.id)),

  /** A token's MCP access, for the token form. */
  tokenAccess: adminProcedure.input(idInputSchema).query(({ ctx, input }) => getTokenMcpAccess(ctx.db, input.id)),

  /** Sets a token's MCP servers and tools (administrators only: an owner cannot widen what its key reaches). */
  setTokenAccess: adminProcedure.input(tokenMcpAccessSchema).mutation(({ ctx, input }) => setTokenMcpAccess(ctx.db, ctx.user, input)),
});
