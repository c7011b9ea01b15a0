import { authedProcedure, router } from "../trpc";

export const quickStartRouter = router({
  /** The address clients configure: the console's base URL (or the configured public one) + /v1. */
  info: authedProcedure.query(({ ctx }) => ({ baseUrl: `${ctx.publicBaseUrl}/v1` })),
});
