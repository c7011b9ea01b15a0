import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The encryption secret: TOLLGATE_SECRET when given; in embedded mode a random one generated into the
 * data folder on first start (mode 0600) and reused after. With Postgres it must be given explicitly, since
 * every instance sharing the database needs the same one.
 */
export function resolveEncryptionSecret(options: { secret?: string; databaseUrl?: string; dataDir: string }): string {
  if (options.secret) return options.secret;
  if (options.databaseUrl) {
    throw new Error("TOLLGATE_SECRET is required when DATABASE_URL is set (every instance must share it)");
  }
  const file = join(options.dataDir, "secret.key");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(options.dataDir, { recursive: true });
  const generated = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  writeFileSync(file, `${generated}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return generated;
}
