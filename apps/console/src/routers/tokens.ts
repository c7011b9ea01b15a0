import { createToken, createTokenSchema, deleteToken, getToken, idInputSchema, listTokens, listTokensSchema, updateToken, updateTokenSchema } from "@tollgate/admin";
import { authedProcedure, router } from "../trpc";

/** A signed-in user manages their own tokens, an administrator everyone's (the rules: packages/admin tokens). */
export const tokensRouter = router({
  list: authedProcedure
    .input(listTokensSchema.optional())
    .query(({ ctx, input }) => listTokens(ctx.db, ctx.user, { userId: input?.userId, newestFirst: true })),

  byId: authedProcedure.input(idInputSchema).query(({ ctx, input }) => getToken(ctx.db, ctx.user, input.id)),

  /** The only procedure that ever returns a token's secret, once. */
  create: authedProcedure.input(createTokenSchema).mutation(({ ctx, input }) => createToken(ctx.db, ctx.user, input)),

  update: authedProcedure.input(updateTokenSchema).mutation(({ ctx, input }) => updateToken(ctx.db, ctx.user, input)),

  delete: authedProcedure.input(idInputSchema).mutation(async ({ ctx, input }) => ({ id: (await deleteToken(ctx.db, ctx.user, input.id)).id })),
});
