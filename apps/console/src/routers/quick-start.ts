import { onboardingStatus } from "@tollgate/admin";
import { authedProcedure, router } from "../trpc";

export const quickStartRouter = router({
  /** The address clients configure: the console's base URL (or the configured public one) + /v1. */
  info: authedProcedure.query(({ ctx }) => ({ baseUrl: `${ctx.publicBaseUrl}/v1` })),

  /** The getting-started checklist and, for admins, the models served without a price. */
  onboarding: authedProcedure.query(({ ctx }) => onboardingStatus(ctx.db, ctx.user)),
});
