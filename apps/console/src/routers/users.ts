import {
  createUser,
  createUserSchema,
  deductUserBalance,
  deductUserSchema,
  deleteUser,
  getUserWithBalanceLogs,
  idInputSchema,
  pageQuerySchema,
  searchUsers,
  setPasswordSchema,
  setUserPassword,
  topUpUser,
  topUpUserSchema,
  updateUser,
  updateUserSchema,
} from "@tollgate/admin";
import { hashSessionSecret } from "../auth/sessions";
import { adminProcedure, router } from "../trpc";

/** Users, their balances and passwords (packages/admin users). */
export const usersRouter = router({
  /** A page of users, by id, searched by name or group. */
  list: adminProcedure.input(pageQuerySchema.default({ offset: 0, limit: 50 })).query(({ ctx, input }) => searchUsers(ctx.db, input)),

  /** A user with their latest balance changes. */
  byId: adminProcedure.input(idInputSchema).query(({ ctx, input }) => getUserWithBalanceLogs(ctx.db, input.id)),

  create: adminProcedure.input(createUserSchema).mutation(({ ctx, input }) => createUser(ctx.db, ctx.user, input)),

  update: adminProcedure.input(updateUserSchema).mutation(({ ctx, input }) => updateUser(ctx.db, ctx.user, input)),

  delete: adminProcedure.input(idInputSchema).mutation(({ ctx, input }) => deleteUser(ctx.db, ctx.user, input.id)),

  topUp: adminProcedure.input(topUpUserSchema).mutation(async ({ ctx, input }) => (await topUpUser(ctx.db, ctx.user, input)).user),

  /** Subtracts from the balance with a required note; not below zero unless allowNegative (packages/admin). */
  deduct: adminProcedure.input(deductUserSchema).mutation(async ({ ctx, input }) => (await deductUserBalance(ctx.db, ctx.user, input)).user),

  /** Sets a new password and signs the user out everywhere (but this session, when it is one's own). */
  resetPassword: adminProcedure.input(setPasswordSchema).mutation(async ({ ctx, input }) => {
    const ownSession = input.id === ctx.user.id && ctx.sessionSecret ? hashSessionSecret(ctx.sessionSecret) : undefined;
    await setUserPassword(ctx.db, ctx.user, input, { keepSessionId: ownSession });
    return { ok: true as const };
  }),
});
