import { createLogger } from "@tollgate/gateway/logger";
import { guardDriverRace } from "./driver-race-guard";
import { announceSetupCode } from "./announce-setup-code";
import { startAuditPurge } from "./audit-purge-job";
import { readServerEnvironment } from "./env";
import { openStorage } from "./open-storage";
import { serveConsole } from "./serve-console";
import { serveGateway } from "./serve-gateway";
import { modeProfiles, parseServerMode, serverUsage } from "./server-mode";
import { stopOnSignals } from "./shutdown";

// The one process entry: `npm start` (no argument), `npm run start:gateway` (gateway),
// `npm run start:console` (console). Nothing else in the process reads the environment or listens.
const mode = parseServerMode(process.argv.slice(2));
if (mode === null) {
  console.error(serverUsage);
  process.exit(2);
}
const environment = readServerEnvironment(mode);
const log = createLogger(environment.LOG_LEVEL);
guardDriverRace(log);
const storage = await openStorage(environment, mode);
if (storage.resealed.channels + storage.resealed.settings > 0) {
  log("info", "stored secrets re-sealed in the current format", { channels: storage.resealed.channels, settings: storage.resealed.settings });
}
if (storage.resealed.unreadable > 0) {
  log("warn", "stored secrets that this TOLLGATE_SECRET cannot open were left as they are", { count: storage.resealed.unreadable });
}
const profile = modeProfiles[mode];
let auditPurge: { stop(): Promise<void> } | null = null;
if (profile.servesConsole) {
  await announceSetupCode({ db: storage.database.db, setupCodes: storage.setupCodes, dataDir: environment.TOLLGATE_DATA_DIR, log });
  auditPurge = startAuditPurge({ db: storage.database.db, log });
}
const serving = profile.servesGateway
  ? await serveGateway({ environment, storage, log, withConsole: profile.servesConsole })
  : serveConsole({ environment, storage, log });
stopOnSignals({ log, drainMs: environment.SHUTDOWN_DRAIN_MS, storage, jobs: auditPurge, ...serving });
