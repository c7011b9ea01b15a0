import { rmSync } from "node:fs";
import { createSetupCodes, type SetupCodes } from "@tollgate/admin";
import {
  type DatabaseHandle,
  type DataDirLock,
  lockDataDirWhenFree,
  migrateDatabase,
  OWNER_ONLY_UMASK,
  openDatabase,
  type ResealOutcome,
  resealStoredSecrets,
  resolveEncryptionSecret,
  restrictDataDir,
} from "@tollgate/db";
import { createSecretBox, type SecretBox } from "@tollgate/shared";
import { setupCodeFile } from "./announce-setup-code";
import type { ServerEnvironment } from "./env";
import type { ServerMode } from "./server-mode";

/** The database this process serves from, migrated, and the box that seals upstream keys in it. */
export interface Storage {
  database: DatabaseHandle;
  secretBox: SecretBox;
  /** The first-run setup codes, derived from the same secret (so every instance on the database agrees). */
  setupCodes: SetupCodes;
  /** Embedded PGlite in TOLLGATE_DATA_DIR (no DATABASE_URL): this process holds the folder's lock. */
  embedded: boolean;
  /** What the start-up re-seal of old-format secrets did (see resealStoredSecrets). */
  resealed: ResealOutcome;
  /** Lets the data folder go (embedded; also done when the process exits). */
  releaseDataDir(): void;
}

function inUseMessage(mode: ServerMode, dataDir: string, holder: { pid: number; role: string }): string {
  if (mode === "console") {
    return (
      `tollgate console: the data folder ${dataDir} is in use (pid ${holder.pid}). With the embedded ` +
      "database the console runs inside `npm start`; run it standalone only with DATABASE_URL."
    );
  }
  return (
    `tollgate: the data folder ${dataDir} is in use by another ${holder.role === "server" ? "Tollgate server" : "CLI command"} (pid ${holder.pid}). ` +
    "Stop it, or give this one another TOLLGATE_DATA_DIR (or a DATABASE_URL to share a database)."
  );
}

function warnIfNotRestricted(dataDir: string, refused: string[]): void {
  if (refused.length === 0) return;
  console.error(
    `tollgate: ${refused.length} path(s) in the data folder ${dataDir} belong to another user and stay readable by others ` +
      `(e.g. ${refused[0]}): chown the folder to the user that runs Tollgate`,
  );
}

/**
 * Takes the data folder (embedded: only one process may open it; a CLI command that has it is waited for,
 * another server is refused and this one exits), opens and migrates the database, builds the secret box and
 * re-seals secrets an older version stored.
 */
export async function openStorage(environment: ServerEnvironment, mode: ServerMode): Promise<Storage> {
  const embedded = !environment.DATABASE_URL;
  let dataDirLock: DataDirLock | null = null;
  // Whatever an older version or a looser umask left readable in the data folder is made owner-only, and
  // (embedded) what the database writes from now on is created so.
  warnIfNotRestricted(environment.TOLLGATE_DATA_DIR, restrictDataDir(environment.TOLLGATE_DATA_DIR));
  if (embedded) {
    process.umask(OWNER_ONLY_UMASK);
    const lock = await lockDataDirWhenFree(environment.TOLLGATE_DATA_DIR, "server", { timeoutMs: 30_000, stopIfServer: true });
    if (!("release" in lock)) {
      console.error(inUseMessage(mode, environment.TOLLGATE_DATA_DIR, lock));
      process.exit(1);
    }
    dataDirLock = lock;
    process.on("exit", () => dataDirLock?.release());
  }
  const database = await openDatabase({
    databaseUrl: environment.DATABASE_URL,
    dataDir: environment.TOLLGATE_DATA_DIR,
    poolSize: environment.DATABASE_POOL_SIZE,
    // A new embedded folder is migrated on the thread that creates it (its memory goes with it); the
    // migration below then finds nothing to do there.
    prepareNew: migrateDatabase,
  });
  await migrateDatabase(database);
  // PGlite sets its files' modes itself (0666, past the umask): once more now that it has written them.
  // Files it creates later sit in owner-only folders.
  if (embedded) warnIfNotRestricted(environment.TOLLGATE_DATA_DIR, restrictDataDir(environment.TOLLGATE_DATA_DIR));
  const encryptionSecret = resolveEncryptionSecret({
    secret: environment.TOLLGATE_SECRET,
    databaseUrl: environment.DATABASE_URL,
    dataDir: environment.TOLLGATE_DATA_DIR,
  });
  const secretBox = await createSecretBox(encryptionSecret);
  // Secrets sealed by an older version (v1) are sealed again, bound to their rows, before anything serves.
  const resealed = await resealStoredSecrets(database.db, secretBox);
  const setupCodes = createSetupCodes(encryptionSecret, { onSpent: () => rmSync(setupCodeFile(environment.TOLLGATE_DATA_DIR), { force: true }) });
  return { database, secretBox, setupCodes, embedded, resealed, releaseDataDir: () => dataDirLock?.release() };
}
