import { router } from "../trpc";
import { alertsRouter } from "./alerts";
import { authRouter } from "./auth";
import { channelsRouter } from "./channels";
import { dashboardRouter } from "./dashboard";
import { logsRouter } from "./logs";
import { modelsRouter } from "./models";
import { quickStartRouter } from "./quick-start";
import { tokensRouter } from "./tokens";
import { usersRouter } from "./users";
import { auditRouter } from "./audit";
import { apiKeysRouter } from "./api-keys";

export const appRouter = router({
  auth: authRouter,
  tokens: tokensRouter,
  channels: channelsRouter,
  models: modelsRouter,
  users: usersRouter,
  logs: logsRouter,
  dashboard: dashboardRouter,
  quickStart: quickStartRouter,
  alerts: alertsRouter,
  audit: auditRouter,
  apiKeys: apiKeysRouter,
});

/** The SPA imports only this type. */
export type AppRouter = typeof appRouter;
