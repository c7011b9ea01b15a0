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
 * folder does not exist yet.
 */
export function restrictDataDir(dataDir: string): void {
  if (!existsSync(dataDir)) return;
  chmodSync(dataDir, 0o700);
  const folders = [dataDir];
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      try {
        const stats = lstatSync(path);
        if (stats.isSymbolicLink()) continue;
        if ((stats.mode & 0o077) !== 0) chmodSync(path, stats.mode & 0o700);
        if (stats.isDirectory()) folders.push(path);
      } catch (error) {
        // Removed meanwhile (a lock or spool file); anything else (not ours to change) is said.
        if ((error as { code?: string }).code !== "ENOENT") throw error;
      }
    }
  }
}
