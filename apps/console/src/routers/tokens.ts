import {
  createToken,
  createTokenSchema,
  deleteToken,
  getOwnerLimits,
  getToken,
  idInputSchema,
  ownerLimitsSchema,
  listTokensSchema,
  searchTokens,
  rollToken,
  rollTokenSchema,
  updateToken,
  updateTokenSchema,
} from "@tollgate/admin";
import { authedProcedure, router } from "../trpc";

/** A signed-in user manages their own tokens, an administrator everyone's (the rules: packages/admin tokens). */
export const tokensRouter = router({
  /** A page of tokens, newest first, searched by name, key prefix (and owner, for administrators). */
  list: authedProcedure.input(listTokensSchema.default({ offset: 0, limit: 50 })).query(({ ctx, input }) => searchTokens(ctx.db, ctx.user, input)),

  /** The limits the owner's account puts on every token (the token form shows them as inherited). */
  ownerLimits: authedProcedure
    .input(ownerLimitsSchema)
    .query(({ ctx, input }) => getOwnerLimits(ctx.db, ctx.user, input.userId)),

  byId: authedProcedure.input(idInputSchema).query(({ ctx, input }) => getToken(ctx.db, ctx.user, input.id)),

  /** With roll, the only procedures that ever return a token's secret, once. */
  create: authedProcedure.input(createTokenSchema).mutation(({ ctx, input }) => createToken(ctx.db, ctx.user, input)),

  /** A new secret for the same token; the old one works for `graceSeconds` (default 24 h, 0: at once). */
  roll: authedProcedure.input(rollTokenSchema).mutation(({ ctx, input }) => rollToken(ctx.db, ctx.user, input)),

  update: authedProcedure.input(updateTokenSchema).mutation(({ ctx, input }) => updateToken(ctx.db, ctx.user, input)),

  delete: authedProcedure.input(idInputSchema).mutation(async ({ ctx, input }) => ({ id: (await deleteToken(ctx.db, ctx.user, input.id)).id })),
});
