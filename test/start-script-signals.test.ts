import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runtimeEnvDefaults } from "../scripts/runtime-env.mjs";
import { type FreshDatabase, freshDatabase, seedDataFolder, usePostgres } from "./helpers/fresh-database";
import { waitFor } from "./helpers/gateway-fixture";
import { serverEnvironment } from "./helpers/gateway-process";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

const root = join(import.meta.dir, "..");
let database: FreshDatabase | null = null;
const dataDirs: string[] = [];

beforeAll(async () => {
  if (usePostgres) database = await freshDatabase();
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await database?.drop();
  for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
}, SETUP_TIMEOUT_MS);

/** Pids whose parent is `parent` (Linux /proc). */
function childrenOf(parent: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name in parentheses may hold spaces: the fields that follow it are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parentPid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (parentPid === parent) children.push(Number(entry));
    } catch {
      // The process ended while the list was read.
    }
  }
  return children;
}

/** True while `pid` exists and is not a zombie. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

describe("node scripts/bootstrap.mjs (npm start, npm run start:gateway)", () => {
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    test(
      `${signal} to the wrapper reaches the server, and the wrapper exits once the server has stopped`,
      async () => {
        // A folder of its own: a server ended by SIGHUP does not release its data folder's lock.
        const dataDir = mkdtempSync(join(tmpdir(), "tollgate-signals-"));
        dataDirs.push(dataDir);
        await seedDataFolder(dataDir);
        const wrapper = Bun.spawn(["node", join(root, "scripts/bootstrap.mjs"), "start:gateway"], {
          cwd: root,
          env: serverEnvironment(dataDir, database),
          stdout: "pipe",
          stderr: "inherit",
        });
        let server: number | undefined;
        try {
          const reader = wrapper.stdout.getReader();
          let output = "";
          const url = await waitFor(
            async () => {
              const { done, value } = await reader.read();
              if (done) throw new Error(`the wrapper ended before the gateway listened: ${output}`);
              output += new TextDecoder().decode(value);
              return /"url":"(http:\/\/[^"]+)\/v1"/.exec(output)?.[1];
            },
            "the gateway to listen",
            SETUP_TIMEOUT_MS,
          );
          void (async () => {
            while (!(await reader.read()).done);
          })();
          [server] = childrenOf(wrapper.pid);
          expect(server).toBeNumber();
          expect((await fetch(`${url.replace("localhost", "127.0.0.1")}/healthz`)).status).toBe(200);
          // The server runs with the runtime defaults (scripts/runtime-env.mjs), the collector's pacing included.
          const serverEnv = readFileSync(`/proc/${server}/environ`, "utf8").split("\0");
          expect(serverEnv).toContain(`BUN_JSC_forceRAMSize=${process.env.BUN_JSC_forceRAMSize ?? runtimeEnvDefaults.BUN_JSC_forceRAMSize}`);

          wrapper.kill(signal);
          await wrapper.exited;
          // The gateway drains and exits 0 on SIGTERM and SIGINT; it has no handler for SIGHUP, which ends it.
          if (signal === "SIGHUP") expect(wrapper.signalCode).toBe("SIGHUP");
          else expect(wrapper.exitCode).toBe(0);
          await waitFor(() => !running(server!), `the server (pid ${server}) to be gone`);
        } finally {
          if (server !== undefined && running(server)) process.kill(server, "SIGKILL");
          wrapper.kill("SIGKILL");
          await wrapper.exited;
        }
      },
      SETUP_TIMEOUT_MS,
    );
  }
});
