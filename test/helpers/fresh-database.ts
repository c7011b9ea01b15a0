import { type DatabaseHandle, migrateDatabase, openDatabase } from "@tollgate/db";
import postgres from "postgres";

export interface FreshDatabase {
  handle: DatabaseHandle;
  /** postgres:// URL of the fresh database; undefined on embedded PGlite. */
  url?: string;
  /** Opens another handle on the same database (a second gateway instance, the CLI). Postgres only. */
  openAnother(): Promise<DatabaseHandle>;
  drop(): Promise<void>;
}

/**
 * A migrated, empty database for one test file: a new database on the server of DATABASE_URL when it is
 * set (CI runs the suite both ways), otherwise an in-memory PGlite.
 */
export async function freshDatabase(): Promise<FreshDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const handle = await openDatabase({ dataDir: "memory://" });
    await migrateDatabase(handle);
    return {
      handle,
      async openAnother() {
        throw new Error("a second connection to an in-memory PGlite is not possible; needs DATABASE_URL");
      },
      async drop() {
        await handle.close();
      },
    };
  }
  const name = `tollgate_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), poolSize: 5 });
  await migrateDatabase(handle);
  const others: DatabaseHandle[] = [];
  return {
    handle,
    url: url.toString(),
    async openAnother() {
      const other = await openDatabase({ databaseUrl: url.toString(), poolSize: 5 });
      others.push(other);
      return other;
    },
    async drop() {
      for (const other of others) await other.close().catch(() => {});
      await handle.close().catch(() => {});
      await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.end({ timeout: 5 });
    },
  };
}
