import { router } from "../trpc";
import { alertsRouter } from "./alerts";
import { authRouter } from "./auth";
import { channelsRouter } from "./channels";
import { dashboardRouter } from "./dashboard";
import { logRetentionRouter } from "./log-retention";
import { logsRouter } from "./logs";
import { mcpRouter } from "./mcp";
import { modelsRouter } from "./models";
import { quickStartRouter } from "./quick-start";
import { teamsRouter } from "./teams";
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
  mcp: mcpRouter,
  logRetention: logRetentionRouter,
  teams: teamsRouter,
  audit: auditRouter,
  apiKeys: apiKeysRouter,
});

/** The SPA imports only this type. */
export type AppRouter = typeof appRouter;
