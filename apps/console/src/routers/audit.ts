import { auditRetentionSchema, getAuditRetention, listAudit, listAuditSchema, setAuditRetention, verifyAuditChain } from "@tollgate/admin";
import { adminProcedure, router } from "../trpc";

/** The audit log (packages/admin audit): filtered pages, the chain's verification and the retention. */
export const auditRouter = router({
  list: adminProcedure.input(listAuditSchema).query(({ ctx, input }) => listAudit(ctx.db, ctx.user, input)),

  verify: adminProcedure.query(({ ctx }) => verifyAuditChain(ctx.db)),

  retention: adminProcedure.query(({ ctx }) => getAuditRetention(ctx.db)),

  setRetention: adminProcedure.input(auditRetentionSchema).mutation(({ ctx, input }) => setAuditRetention(ctx.db, ctx.user, input)),
});
