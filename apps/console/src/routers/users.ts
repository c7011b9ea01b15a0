import { balanceLogs, sessions, users } from "@tollgate/db";
import { TRPCError } from "@trpc/server";
import { and, asc, desc, eq, ne, sql } from "drizzle-orm";
import { z } from "zod";
import { deleteUserSessions, hashSessionSecret } from "../auth/sessions";
import { fieldError, isUniqueViolation, notFound } from "../errors";
import { adminProcedure, type ConsoleContext, router } from "../trpc";
import { groupSchema, passwordSchema, positiveUsdSchema, recordId, usdSchema, userNameSchema } from "../validation";

/** Every column but the password hash; `hasPassword` says whether the user can sign in. */
const userColumns = {
  id: users.id,
  name: users.name,
  role: users.role,
  group: users.group,
  balance: users.balance,
  balanceUnlimited: users.balanceUnlimited,
  status: users.status,
  hasPassword: sql<boolean>`${users.passwordHash} is not null`.mapWith(Boolean),
  createdAt: users.createdAt,
};

async function loadUser(ctx: ConsoleContext, id: number) {
  const [user] = await ctx.db.select(userColumns).from(users).where(eq(users.id, id)).limit(1);
  if (!user) throw notFound("User");
  return user;
}

function refuseSelf(ctx: ConsoleContext & { user: { id: number } }, id: number, what: string) {
  if (id === ctx.user.id) throw new TRPCError({ code: "BAD_REQUEST", message: `You cannot ${what} your own account` });
}

export const usersRouter = router({
  list: adminProcedure.query(({ ctx }) => ctx.db.select(userColumns).from(users).orderBy(asc(users.id))),

  /** A user with their latest balance changes. */
  byId: adminProcedure.input(z.object({ id: recordId })).query(async ({ ctx, input }) => {
    const user = await loadUser(ctx, input.id);
    const history = await ctx.db
      .select({ id: balanceLogs.id, amount: balanceLogs.amount, reason: balanceLogs.reason, actorId: balanceLogs.actorId, createdAt: balanceLogs.createdAt })
      .from(balanceLogs)
      .where(eq(balanceLogs.userId, input.id))
      .orderBy(desc(balanceLogs.createdAt), desc(balanceLogs.id))
      .limit(50);
    return { ...user, balanceLogs: history };
  }),

  create: adminProcedure
    .input(
      z.object({
        name: userNameSchema,
        /** Omitted: the user cannot sign in to the console (an API-only account). */
        password: passwordSchema.optional(),
        role: z.enum(["admin", "user"]).default("user"),
        group: groupSchema.default("default"),
        /** USD; null is unlimited. */
        balance: usdSchema.nullable().default(null),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      if (input.role === "admin" && !input.password) throw fieldError("password", "An administrator needs a password");
      const passwordHash = input.password ? await Bun.password.hash(input.password, { algorithm: "argon2id" }) : null;
      try {
        const [created] = await ctx.db
          .insert(users)
          .values({
            name: input.name,
            passwordHash,
            role: input.role,
            group: input.group,
            balance: input.balance ?? 0,
            balanceUnlimited: input.balance === null,
          })
          .returning({ id: users.id });
        return loadUser(ctx, created!.id);
      } catch (error) {
        if (isUniqueViolation(error)) throw fieldError("name", "A user with this name exists already");
        throw error;
      }
    }),

  update: adminProcedure
    .input(
      z.object({
        id: recordId,
        group: groupSchema.optional(),
        role: z.enum(["admin", "user"]).optional(),
        status: z.enum(["enabled", "disabled"]).optional(),
        balanceUnlimited: z.boolean().optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { id, ...changes } = input;
      await loadUser(ctx, id);
      if (changes.status === "disabled") refuseSelf(ctx, id, "disable");
      if (changes.role === "user") refuseSelf(ctx, id, "demote");
      await ctx.db.update(users).set({ ...changes, updatedAt: new Date() }).where(eq(users.id, id));
      if (changes.status === "disabled") await deleteUserSessions(ctx.db, id);
      return loadUser(ctx, id);
    }),

  delete: adminProcedure.input(z.object({ id: recordId })).mutation(async ({ ctx, input }) => {
    refuseSelf(ctx, input.id, "delete");
    const [deleted] = await ctx.db.delete(users).where(eq(users.id, input.id)).returning({ id: users.id });
    if (!deleted) throw notFound("User");
    return deleted;
  }),

  /** Adds to a user's balance and records it in balance_logs, in one transaction. */
  topUp: adminProcedure
    .input(z.object({ id: recordId, amount: positiveUsdSchema, reason: z.string().trim().max(200).default("top-up") }))
    .mutation(async ({ ctx, input }) => {
      await ctx.db.transaction(async (transaction) => {
        const [updated] = await transaction
          .update(users)
          .set({ balance: sql`${users.balance} + ${input.amount}`, updatedAt: new Date() })
          .where(eq(users.id, input.id))
          .returning({ id: users.id });
        if (!updated) throw notFound("User");
        await transaction
          .insert(balanceLogs)
          .values({ userId: input.id, amount: input.amount, reason: input.reason || "top-up", actorId: ctx.user.id });
      });
      return loadUser(ctx, input.id);
    }),

  /** Sets a new password and signs the user out everywhere (but this session, when it is one's own). */
  resetPassword: adminProcedure
    .input(z.object({ id: recordId, password: passwordSchema }))
    .mutation(async ({ ctx, input }) => {
      const passwordHash = await Bun.password.hash(input.password, { algorithm: "argon2id" });
      const [updated] = await ctx.db
        .update(users)
        .set({ passwordHash, updatedAt: new Date() })
        .where(eq(users.id, input.id))
        .returning({ id: users.id });
      if (!updated) throw notFound("User");
      const keep = input.id === ctx.user.id && ctx.sessionSecret ? hashSessionSecret(ctx.sessionSecret) : null;
      await ctx.db
        .delete(sessions)
        .where(keep ? and(eq(sessions.userId, input.id), ne(sessions.id, keep)) : eq(sessions.userId, input.id));
      return { ok: true as const };
    }),
});
