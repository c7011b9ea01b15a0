import {
  availableModels,
  deletePrice,
  getPrice,
  listModels,
  modelNameSchema,
  setPrice,
  setPriceSchema,
  updateModelRouting,
  updateModelRoutingSchema,
} from "@tollgate/admin";
import { adminProcedure, authedProcedure, router } from "../trpc";

/** Models and their prices; prices travel as integer micro-USD per 1M tokens (packages/admin models). */
export const modelsRouter = router({
  list: adminProcedure.query(({ ctx }) => listModels(ctx.db)),

  available: authedProcedure.query(({ ctx }) => availableModels(ctx.db, ctx.user)),

  byId: adminProcedure.input(modelNameSchema).query(({ ctx, input }) => getPrice(ctx.db, input.model)),

  update: adminProcedure.input(setPriceSchema).mutation(({ ctx, input }) => setPrice(ctx.db, ctx.user, input)),

  /** The model's fallback list and context window (each only when given). */
  updateRouting: adminProcedure.input(updateModelRoutingSchema).mutation(({ ctx, input }) => updateModelRouting(ctx.db, ctx.user, input)),

  delete: adminProcedure.input(modelNameSchema).mutation(({ ctx, input }) => deletePrice(ctx.db, ctx.user, input.model)),
});
