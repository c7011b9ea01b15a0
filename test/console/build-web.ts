import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export const webDir = join(import.meta.dir, "..", "..", "apps", "web");
export const webDistDir = join(webDir, "dist");

function newestModification(path: string): number {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (!stats) return 0;
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestModification(join(path, entry)));
  return newest;
}

/**
 * Reuses apps/web/dist when it is newer than every source of the SPA; otherwise builds it with the same
 * command CI and the bootstrap use (`bun run --cwd apps/web build`).
 */
export async function ensureWebBuild(): Promise<void> {
  const built = statSync(join(webDistDir, "index.html"), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const sources = ["src", "public", "index.html", "vite.config.ts", "package.json"].map((entry) => newestModification(join(webDir, entry)));
  if (built > Math.max(...sources)) return;
  // bun test sets NODE_ENV=test, with which Vite would bundle React's development build; the console ships production.
  const build = Bun.spawn([process.execPath, "run", "build"], { cwd: webDir, stdout: "pipe", stderr: "pipe", env: { ...process.env, NODE_ENV: "production" } });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(build.stdout).text(), new Response(build.stderr).text(), build.exited]);
  if (exitCode !== 0) throw new Error(`building the console SPA failed (exit ${exitCode}):\n${stdout}\n${stderr}`);
}
