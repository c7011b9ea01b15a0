import { tokens, users, tokenPublicColumns } from "@tollgate/db";
import { displayPrefix, generateTokenSecret, hashTokenSecret } from "@tollgate/shared";
import { TRPCError } from "@trpc/server";
import { and, desc, eq, type SQL } from "drizzle-orm";
import { z } from "zod";
import { fieldError, fieldErrors, notFound } from "../errors";
import { grantedLimitsOf, mergeGrantedLimits, ownerEditErrors } from "../token-entitlements";
import { authedProcedure, type ConsoleContext, isAdmin, router } from "../trpc";
import type { SessionUser } from "../auth/sessions";
import {
  futureInstantSchema,
  groupSchema,
  ipAllowListSchema,
  modelListSchema,
  nameSchema,
  positiveIntSchema,
  recordId,
  usdSchema,
} from "../validation";

/** What any interface may show, plus the ceilings an administrator set (so that a form can say them). */
const tokenColumns = { ...tokenPublicColumns, grantedLimits: tokens.grantedLimits };

/** Fields a token form sets; null means "none" (never expires, unlimited, no limit, owner's group). */
const tokenFields = z.object({
  name: nameSchema,
  group: groupSchema.nullable(),
  expiresAt: futureInstantSchema.nullable(),
  /** USD; null is unlimited. */
  quotaLimit: usdSchema.nullable(),
  allowedModels: modelListSchema,
  allowedIps: ipAllowListSchema,
  /** Requests per minute; null is no limit. */
  rpmLimit: positiveIntSchema.nullable(),
  /** Tokens (prompt + completion) per minute; null is no limit. */
  tpmLimit: positiveIntSchema.nullable(),
});

const createInput = tokenFields.partial().required({ name: true }).extend({
  /** Admins may create a token for another user; users always create their own. */
  userId: recordId.optional(),
});

const updateInput = tokenFields.partial().extend({
  id: recordId,
  status: z.enum(["enabled", "disabled"]).optional(),
});

/** Rows this user may see: all for an admin, their own otherwise. */
function ownedBy(user: SessionUser): SQL | undefined {
  return isAdmin(user) ? undefined : eq(tokens.userId, user.id);
}

async function loadToken(ctx: ConsoleContext, user: SessionUser, id: number) {
  const [token] = await ctx.db
    .select(tokenColumns)
    .from(tokens)
    .innerJoin(users, eq(users.id, tokens.userId))
    .where(and(eq(tokens.id, id), ownedBy(user)))
    .limit(1);
  // Another user's token is reported as missing, not forbidden: its existence is not revealed.
  if (!token) throw notFound("Token");
  return token;
}

export const tokensRouter = router({
  list: authedProcedure
    .input(z.object({ userId: recordId.optional() }).optional())
    .query(async ({ ctx, input }) => {
      if (input?.userId !== undefined && !isAdmin(ctx.user) && input.userId !== ctx.user.id) {
        throw new TRPCError({ code: "FORBIDDEN", message: "You can only list your own tokens" });
      }
      const ownerFilter = input?.userId !== undefined ? eq(tokens.userId, input.userId) : undefined;
      return ctx.db
        .select(tokenColumns)
        .from(tokens)
        .innerJoin(users, eq(users.id, tokens.userId))
        .where(and(ownedBy(ctx.user), ownerFilter))
        .orderBy(desc(tokens.id));
    }),

  byId: authedProcedure
    .input(z.object({ id: recordId }))
    .query(({ ctx, input }) => loadToken(ctx, ctx.user, input.id)),

  /**
   * The only procedure that ever returns a token's secret, once. An administrator's token carries its
   * limits as ceilings for its owner; a user's own token has none, and always uses the user's group.
   */
  create: authedProcedure.input(createInput).mutation(async ({ ctx, input }) => {
    let userId = ctx.user.id;
    if (input.userId !== undefined && input.userId !== ctx.user.id) {
      if (!isAdmin(ctx.user)) throw new TRPCError({ code: "FORBIDDEN", message: "You can only create tokens for yourself" });
      const [owner] = await ctx.db.select({ id: users.id }).from(users).where(eq(users.id, input.userId)).limit(1);
      if (!owner) throw fieldError("userId", "Unknown user");
      userId = owner.id;
    }
    let group = input.group ?? null;
    if (!isAdmin(ctx.user) && group !== null) {
      // Naming one's own group is allowed and stored as "the owner's group", so that the token follows
      // the user if an administrator moves them; any other group is not theirs to reach.
      if (group !== ctx.user.group) throw fieldErrors({ group: ["Only an administrator can set a token's group"] }, "FORBIDDEN");
      group = null;
    }
    const limits = {
      expiresAt: input.expiresAt ?? null,
      quotaLimit: input.quotaLimit ?? null,
      allowedModels: input.allowedModels ?? [],
      allowedIps: input.allowedIps ?? [],
      rpmLimit: input.rpmLimit ?? null,
      tpmLimit: input.tpmLimit ?? null,
    };
    const secret = generateTokenSecret();
    const [created] = await ctx.db
      .insert(tokens)
      .values({
        userId,
        name: input.name,
        keyHash: hashTokenSecret(secret),
        keyPrefix: displayPrefix(secret),
        group,
        ...limits,
        grantedLimits: isAdmin(ctx.user) ? grantedLimitsOf(limits) : {},
      })
      .returning({ id: tokens.id });
    if (!created) throw new Error("the new token was not returned");
    return { token: await loadToken(ctx, ctx.user, created.id), secret };
  }),

  /**
   * An administrator's write also sets the ceilings of the limits it names. An owner's write is checked
   * against them, under a row lock, so that an administrator's concurrent change cannot be outrun.
   */
  update: authedProcedure.input(updateInput).mutation(async ({ ctx, input }) => {
    const { id, ...changes } = input;
    if (isAdmin(ctx.user)) {
      const [updated] = await ctx.db
        .update(tokens)
        .set({ ...changes, grantedLimits: mergeGrantedLimits(grantedLimitsOf(changes)), updatedAt: new Date() })
        .where(eq(tokens.id, id))
        .returning({ id: tokens.id });
      if (!updated) throw notFound("Token");
      return loadToken(ctx, ctx.user, id);
    }
    await ctx.db.transaction(async (transaction) => {
      const [current] = await transaction
        .select({
          group: tokens.group,
          status: tokens.status,
          quotaLimit: tokens.quotaLimit,
          expiresAt: tokens.expiresAt,
          allowedModels: tokens.allowedModels,
          allowedIps: tokens.allowedIps,
          rpmLimit: tokens.rpmLimit,
          tpmLimit: tokens.tpmLimit,
          grantedLimits: tokens.grantedLimits,
        })
        .from(tokens)
        .where(and(eq(tokens.id, id), eq(tokens.userId, ctx.user.id)))
        .for("update")
        .limit(1);
      // Another user's token is reported as missing, not forbidden: its existence is not revealed.
      if (!current) throw notFound("Token");
      const refused = ownerEditErrors(current, changes);
      if (Object.keys(refused).length > 0) throw fieldErrors(refused, "FORBIDDEN");
      const { group: _unchangedGroup, ...allowed } = changes;
      await transaction.update(tokens).set({ ...allowed, updatedAt: new Date() }).where(eq(tokens.id, id));
    });
    return loadToken(ctx, ctx.user, id);
  }),

  delete: authedProcedure.input(z.object({ id: recordId })).mutation(async ({ ctx, input }) => {
    const [deleted] = await ctx.db
      .delete(tokens)
      .where(and(eq(tokens.id, input.id), ownedBy(ctx.user)))
      .returning({ id: tokens.id });
    if (!deleted) throw notFound("Token");
    return { id: deleted.id };
  }),
});
