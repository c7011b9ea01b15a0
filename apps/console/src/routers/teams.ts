import {
  addTeamMember,
  addTeamMemberSchema,
  createTeam,
  createTeamSchema,
  deleteTeam,
  getTeam,
  idInputSchema,
  listTeams,
  removeTeamMember,
  removeTeamMemberSchema,
  teamLogs,
  teamUsage,
  updateTeam,
  updateTeamSchema,
} from "@tollgate/admin";
import { z } from "zod";
import { adminProcedure, authedProcedure, router } from "../trpc";

/**
 * Teams (packages/admin teams): administrators manage them all; a team admin manages the members of their
 * teams (and, through the tokens router, the teams' tokens) and sees their usage and logs; a member sees
 * the team. The rules, and what each may reach, are the admin operations'.
 */
export const teamsRouter = router({
  /** Every team for an administrator; the signed-in user's teams otherwise. */
  list: authedProcedure.query(({ ctx }) => listTeams(ctx.db, ctx.user)),

  byId: authedProcedure.input(idInputSchema).query(({ ctx, input }) => getTeam(ctx.db, ctx.user, input.id)),

  create: adminProcedure.input(createTeamSchema).mutation(({ ctx, input }) => createTeam(ctx.db, ctx.user, input)),

  update: adminProcedure.input(updateTeamSchema).mutation(({ ctx, input }) => updateTeam(ctx.db, ctx.user, input)),

  delete: adminProcedure.input(idInputSchema).mutation(({ ctx, input }) => deleteTeam(ctx.db, ctx.user, input.id)),

  addMember: authedProcedure.input(addTeamMemberSchema).mutation(({ ctx, input }) => addTeamMember(ctx.db, ctx.user, input)),

  removeMember: authedProcedure.input(removeTeamMemberSchema).mutation(({ ctx, input }) => removeTeamMember(ctx.db, ctx.user, input)),

  /** The team's spend per model over the last 30 days. */
  usage: authedProcedure.input(idInputSchema).query(({ ctx, input }) => teamUsage(ctx.db, ctx.user, input.id)),

  /** The latest request-log rows of the team's tokens. */
  logs: authedProcedure
    .input(idInputSchema.extend({ limit: z.number().int().min(1).max(500).default(50) }))
    .query(({ ctx, input }) => teamLogs(ctx.db, ctx.user, input.id, input.limit)),
});
