import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

/** Who holds an embedded data folder: only one process may open a PGlite folder at a time. */
export interface DataDirHolder {
  pid: number;
  role: "server" | "cli";
}

export interface DataDirLock {
  release(): void;
}

/** Whether a process with this id runs (signal 0 checks without sending anything). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as { code?: string }).code === "EPERM";
  }
}

function lockPath(dataDir: string): string {
  return join(dataDir, "tollgate.lock");
}

/** The live holder of the folder, if any (a lock left by a dead process does not count). */
export function dataDirHolder(dataDir: string): DataDirHolder | null {
  try {
    const holder = JSON.parse(readFileSync(lockPath(dataDir), "utf8")) as DataDirHolder;
    return Number.isSafeInteger(holder.pid) && isProcessAlive(holder.pid) ? holder : null;
  } catch {
    return null;
  }
}

/**
 * Takes the folder for this process, or returns the live holder when another process has it. The lock
 * file is created atomically (O_EXCL); a lock left by a crashed process is taken over.
 */
export function tryLockDataDir(dataDir: string, role: DataDirHolder["role"]): DataDirLock | DataDirHolder {
  mkdirSync(dataDir, { recursive: true });
  const path = lockPath(dataDir);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const descriptor = openSync(path, "wx", 0o600);
      writeSync(descriptor, JSON.stringify({ pid: process.pid, role }));
      closeSync(descriptor);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          rmSync(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") throw error;
      const holder = dataDirHolder(dataDir);
      if (holder) return holder;
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not lock ${dataDir}`);
}

/** Waits (polling) until the folder can be locked, or until a server holds it. */
export async function lockDataDirWhenFree(
  dataDir: string,
  role: DataDirHolder["role"],
  options: { timeoutMs: number; stopIfServer: boolean },
): Promise<DataDirLock | DataDirHolder> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const result = tryLockDataDir(dataDir, role);
    if ("release" in result) return result;
    if (options.stopIfServer && result.role === "server") return result;
    if (Date.now() > deadline) return result;
    await Bun.sleep(100);
  }
}
