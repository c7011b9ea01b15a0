import { getLogRetention, logRetentionSchema, setLogRetention } from "@tollgate/admin";
import { adminProcedure, router } from "../trpc";

/** How long request-log rows are kept (packages/admin log-retention): administrators only. */
export const logRetentionRouter = router({
  get: adminProcedure.query(({ ctx }) => getLogRetention(ctx.db)),

  update: adminProcedure.input(logRetentionSchema).mutation(({ ctx, input }) => setLogRetention(ctx.db, ctx.user, input)),
});
