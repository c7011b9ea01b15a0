#!/usr/bin/env node
// Runs on a machine that has only Node and npm: installs Bun through the npm package `bun` into
// .tools/ when no Bun is on PATH, installs the workspace dependencies, then hands over to Bun.
// Usage: node scripts/bootstrap.mjs <task> [args...]; tasks are listed in `tasks` below.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { constants } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runtimeEnvDefaults, withRuntimeDefaults } from "./runtime-env.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bunVersion = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies.bun;
const localBun = join(root, ".tools", "node_modules", ".bin", process.platform === "win32" ? "bun.exe" : "bun");

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

/**
 * Runs the task's long-lived process (the server, the test runner) and stands in for it: SIGTERM, SIGINT
 * and SIGHUP sent to this wrapper (by `npm start`, `bun run`, a process manager) are passed on, and the
 * wrapper ends only when the child has, with its exit code or by its signal. spawnSync would leave the
 * signals to kill the wrapper alone and the server running, orphaned. With `failed` (an earlier step of
 * the task failed), a child that exits 0 still ends the wrapper with 1.
 */
function runForwardingSignals(command, args, options = {}, { failed = false } = {}) {
  const child = spawn(command, args, { cwd: root, stdio: "inherit", ...options });
  const forwarded = ["SIGTERM", "SIGINT", "SIGHUP"];
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of forwarded) process.on(signal, forward);
  child.on("error", (error) => {
    console.error(`[tollgate] could not start ${command}: ${error.message}`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    for (const name of forwarded) process.off(name, forward);
    if (signal) {
      // End the same way, so that whoever started the wrapper sees what ended the task (the shell's 128 + n
      // when Node ignores that signal, as it does SIGPIPE).
      process.kill(process.pid, signal);
      process.exit(128 + (constants.signals[signal] ?? 0));
    }
    process.exit(code === 0 && failed ? 1 : (code ?? 1));
  });
}

function findBun() {
  if (existsSync(localBun)) return localBun;
  const probe = spawnSync("bun", ["--version"], { stdio: "ignore" });
  if (probe.status === 0) return "bun";
  console.error(`[tollgate] Bun not found: installing bun@${bunVersion} from npm into .tools/ ...`);
  const status = run("npm", ["install", "--prefix", ".tools", "--no-audit", "--no-fund", "--loglevel=error", `bun@${bunVersion}`]);
  if (status !== 0 || !existsSync(localBun)) {
    console.error("[tollgate] could not install Bun through npm");
    process.exit(status || 1);
  }
  return localBun;
}

const [task = "start", ...rest] = process.argv.slice(2);
const bun = findBun();
const env = {
  ...process.env,
  PATH: `${dirname(localBun)}:${process.env.PATH ?? ""}`,
  BUN_CONFIG_MAX_HTTP_REQUESTS: process.env.BUN_CONFIG_MAX_HTTP_REQUESTS ?? runtimeEnvDefaults.BUN_CONFIG_MAX_HTTP_REQUESTS,
};

// `bun install` is a no-op in a fraction of a second when nothing changed, so it always runs: a pull
// that changed dependencies never leaves a stale node_modules behind.
const installArgs = ["install", "--silent"];
if (process.env.CI && existsSync(join(root, "bun.lock"))) installArgs.push("--frozen-lockfile");
const installStatus = run(bun, installArgs, { env });
if (installStatus !== 0) process.exit(installStatus);

// Each task runs Bun directly (not through `bun run`), so that nothing echoes the arguments: the CLI's
// may carry an upstream key.
const tasks = {
  start: ["apps/server/src/index.ts"],
  "start:gateway": ["apps/server/src/index.ts", "gateway"],
  "start:console": ["apps/server/src/index.ts", "console"],
  "build:web": null,
  admin: ["apps/cli/src/index.ts"],
  test: ["test"],
  bench: ["bench/run.ts"],
};
/** Newest modification time under a folder (the SPA's sources), to rebuild only when they changed. */
function newestChange(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === "node_modules" || entry === "dist") continue;
    newest = Math.max(newest, newestChange(join(path, entry)));
  }
  return newest;
}

/** The console's SPA is served from apps/web/dist: build it when missing or older than its sources. */
function buildWebIfStale(force) {
  const web = join(root, "apps", "web");
  const built = join(web, "dist", "index.html");
  if (!force && existsSync(built) && statSync(built).mtimeMs >= newestChange(web)) return;
  console.error("[tollgate] building the console (apps/web) ...");
  const status = run(bun, ["run", "--cwd", "apps/web", "build"], { env });
  if (status !== 0) process.exit(status);
}

if (!(task in tasks)) {
  console.error(`[tollgate] unknown task ${task}; one of: ${Object.keys(tasks).join(", ")}`);
  process.exit(2);
}
if (task === "build:web") {
  buildWebIfStale(true);
  process.exit(0);
}
if (task === "start" || task === "start:console") buildWebIfStale(false);

/**
 * The type check is part of the test command, so CI runs it too. The tests run after a failed check all
 * the same (they tell what works), and the run fails; .ci/run counts this line as one failed test.
 */
function typeCheckPasses() {
  const status = run(bun, [join(root, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", "."], { env });
  if (status !== 0) console.error("[tollgate] type check failed (tsc --noEmit -p .)");
  return status === 0;
}

const failed = task === "test" && !typeCheckPasses();
// The servers run with every runtime default (the collector's pacing too); the tests and the CLI do not need it.
const servesTraffic = task === "start" || task === "start:gateway" || task === "start:console";
runForwardingSignals(bun, [...tasks[task], ...rest], { env: servesTraffic ? withRuntimeDefaults(env) : env }, { failed });
