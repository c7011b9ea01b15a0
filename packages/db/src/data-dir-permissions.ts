import { chmodSync, existsSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * Owner-only: what the process creates from now on. PGlite sets the modes of its database files itself
 * (0666, which no umask masks), so those need restrictDataDir once it has written them; the folders it
 * creates do follow the umask, so files it adds later are out of others' reach all the same.
 */
export const OWNER_ONLY_UMASK = 0o077;

/**
 * Takes every group and other permission off the data folder and everything under it (the folder 0700, the
 * secret, server.json and the setup code 0600, the embedded database's files owner-only), including what an
 * older version or a looser umask left readable. Symbolic links are not followed. Nothing to do when the
 * folder does not exist yet. Returns the paths it was not allowed to change (owned by another user), for
 * the caller to warn about: a start is not refused for them.
 */
export function restrictDataDir(dataDir: string): string[] {
  const refused: string[] = [];
  const restrict = (path: string, mode: number) => {
    try {
      chmodSync(path, mode);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "EPERM" || code === "EACCES") refused.push(path);
      else if (code !== "ENOENT") throw error;
    }
  };
  if (!existsSync(dataDir)) return refused;
  restrict(dataDir, 0o700);
  const folders = [dataDir];
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue; // removed meanwhile, or not ours to read
    }
    for (const name of names) {
      const path = join(folder, name);
      let stats: ReturnType<typeof lstatSync>;
      try {
        stats = lstatSync(path);
      } catch {
        continue; // removed meanwhile (a lock or spool file)
      }
      if (stats.isSymbolicLink()) continue;
      if ((stats.mode & 0o077) !== 0) restrict(path, stats.mode & 0o700);
      if (stats.isDirectory()) folders.push(path);
    }
  }
  return refused;
}
