import type { Logger } from "@tollgate/gateway/logger";

/**
 * postgres.js (3.4.9, the latest release) can call `socket.write` on a connection whose close handler has
 * just set its socket to null, from a setImmediate, when Postgres goes away in the middle of a write: a
 * TypeError thrown outside any promise, which would end the gateway in the very database outage it is built
 * to ride out (cached keys keep working, usage is spooled). That error, and only that one, is recognised here.
 */
export function isPostgresWriteAfterClose(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  if (!/socket\.write/.test(error.message)) return false;
  const topFrames = (error.stack ?? "").split("\n").slice(0, 4).join("\n");
  return /postgres[\\/]src[\\/]connection\.js/.test(topFrames);
}

/**
 * Logs and survives the driver's write-after-close (the connection it broke is closed and replaced by the
 * pool); every other uncaught exception ends the process with its stack and exit code 1, as it did before.
 */
export function guardDriverRace(log: Logger): void {
  process.on("uncaughtException", (error) => {
    if (isPostgresWriteAfterClose(error)) {
      log("error", "the database driver wrote to a connection that had just closed (postgres.js race); carrying on", {});
      return;
    }
    console.error(error);
    process.exit(1);
  });
}
