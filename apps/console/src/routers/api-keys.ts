import { createApiKey, createApiKeySchema, idInputSchema, listApiKeys, revokeApiKey } from "@tollgate/admin";
import { adminProcedure, router } from "../trpc";

/** Management API keys (packages/admin api-keys): the secret is in create's answer only. */
export const apiKeysRouter = router({
  list: adminProcedure.query(({ ctx }) => listApiKeys(ctx.db, ctx.user)),

  create: adminProcedure.input(createApiKeySchema).mutation(({ ctx, input }) => createApiKey(ctx.db, ctx.user, input)),

  revoke: adminProcedure.input(idInputSchema).mutation(({ ctx, input }) => revokeApiKey(ctx.db, ctx.user, input.id)),
});
