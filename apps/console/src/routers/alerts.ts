import { alertSettingsSchema, getAlertSettings, listAlertsSchema, listSpendAlerts, setAlertSettings } from "@tollgate/admin";
import { adminProcedure, authedProcedure, router } from "../trpc";

/** Spend alerts: the webhook settings (admins; the secret comes back masked) and the notices (packages/admin alerts). */
export const alertsRouter = router({
  settings: adminProcedure.query(({ ctx }) => getAlertSettings(ctx.db, ctx.secretBox)),

  updateSettings: adminProcedure.input(alertSettingsSchema).mutation(({ ctx, input }) => setAlertSettings(ctx.db, ctx.secretBox, ctx.user, input, ctx.addressPolicy)),

  /** Recent alerts: every one for an administrator, a user's own otherwise. */
  list: authedProcedure.input(listAlertsSchema.optional()).query(({ ctx, input }) => listSpendAlerts(ctx.db, ctx.user, { limit: input?.limit ?? 50 })),
});
