#!/usr/bin/env node
// Runs on a machine that has only Node and npm: installs Bun through the npm package `bun` into
// .tools/ when no Bun is on PATH, installs the workspace dependencies, then hands over to Bun.
// Usage: node scripts/bootstrap.mjs <task> [args...]; tasks are listed in `tasks` below.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { constants } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runtimeEnvDefaults, withRuntimeDefaults } from "./runtime-env.mjs";
import { testFilesOf } from "./test-tiers.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bunVersion = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies.bun;
const localBun = join(root, ".tools", "node_modules", ".bin", process.platform === "win32" ? "bun.exe" : "bun");
/** Inside node_modules: gitignored, and gone with it, so a clean clone or a removed node_modules starts afresh. */
const cacheFolder = join(root, "node_modules", ".cache", "tollgate");

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

/**
 * Installs the workspace dependencies when the manifests or the lockfile changed since the last install
 * here (a stamp of their hash in node_modules), so that a pull that changed dependencies never leaves a
 * stale node_modules behind. CI installs with --frozen-lockfile, and a stamp left by an install without it
 * does not count there: a clean clone, or a lockfile out of step with package.json, still fails the run.
 */
function installWhenChanged() {
  const lockfile = join(root, "bun.lock");
  const frozen = Boolean(process.env.CI) && existsSync(lockfile);
  const manifests = [
    join(root, "package.json"),
    lockfile,
    ...["apps", "packages"].flatMap((kind) =>
      existsSync(join(root, kind)) ? readdirSync(join(root, kind)).map((folder) => join(root, kind, folder, "package.json")) : [],
    ),
  ];
  const hash = createHash("sha256");
  for (const manifest of manifests) hash.update(`${manifest}\0${existsSync(manifest) ? readFileSync(manifest) : ""}\0`);
  const stamp = `${hash.digest("hex")}${frozen ? " frozen" : ""}`;
  const stampFile = join(cacheFolder, "install-stamp");
  if (existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp) return;
  const installArgs = ["install", "--silent"];
  if (frozen) installArgs.push("--frozen-lockfile");
  const installStatus = run(bun, installArgs, { env });
  if (installStatus !== 0) process.exit(installStatus);
  mkdirSync(cacheFolder, { recursive: true });
  writeFileSync(stampFile, stamp);
}

installWhenChanged();

// Each task runs Bun directly (not through `bun run`), so that nothing echoes the arguments: the CLI's
// may carry an upstream key.
const tasks = {
  start: ["apps/server/src/index.ts"],
  "start:gateway": ["apps/server/src/index.ts", "gateway"],
  "start:console": ["apps/server/src/index.ts", "console"],
  "build:web": null,
  admin: ["apps/cli/src/index.ts"],
  // The test tasks' arguments come from testArguments below: the files of their tiers.
  test: null,
  "test:unit": null,
  "test:integration": null,
  "test:e2e": null,
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
  // Incremental (tsconfig.json: incremental, tsBuildInfoFile in node_modules/.cache): a second run re-checks
  // only what changed since the first.
  const status = run(bun, [join(root, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", "."], { env });
  if (status !== 0) console.error("[tollgate] type check failed (tsc --noEmit -p .)");
  return status === 0;
}

/** The tiers each test task runs (scripts/test-tiers.mjs); `test` runs them all, after the type check. */
const testTiers = {
  test: ["unit", "integration", "e2e"],
  "test:unit": ["unit"],
  "test:integration": ["integration"],
  "test:e2e": ["e2e"],
};

/** bun test's options that take their value as the next argument (`-t name`), rather than after `=`. */
const testOptionsWithValue = new Set([
  "-t",
  "--test-name-pattern",
  "--timeout",
  "--rerun-each",
  "--retry",
  "--reporter",
  "--reporter-outfile",
  "--preload",
  "--max-concurrency",
  "--seed",
  "--shard",
  "--timings",
  "--coverage-dir",
  "--coverage-reporter",
]);

/**
 * Test files run on two worker processes (the machine's two cores; most files wait on sockets, timers and
 * child processes as much as they compute, and each file makes its own database). --no-isolate keeps one
 * module registry per worker, as one serial run does: each worker starts PGlite's thread (and compiles its
 * WebAssembly) once, not once per file; with isolation the suite took over twice the CPU. The durations
 * of the last run (node_modules/.cache) balance the two workers and start the slowest files first; where
 * there was none (a clean clone, CI's first run), those of scripts/test-timings.json (a CI run's,
 * committed), without which the slowest file could start last. Paths
 * or filters given after `--` select files as bun test itself does (serially, unless --parallel is given).
 */
function testArguments(tiers) {
  let selects = false;
  for (let index = 0; index < rest.length; index++) {
    if (testOptionsWithValue.has(rest[index])) index++;
    else if (!rest[index].startsWith("-")) selects = true;
  }
  if (selects) return ["test", ...rest];
  const timings = join(cacheFolder, "test-timings.json");
  const parallel = rest.some((flag) => flag.startsWith("--parallel"))
    ? []
    : ["--parallel=2", "--no-isolate", `--timings=${timings}`, `--timings=${join(root, "scripts", "test-timings.json")}`, "--update-timings"];
  mkdirSync(cacheFolder, { recursive: true });
  return ["test", ...parallel, ...rest, ...testFilesOf(root, tiers).map((path) => `./${path}`)];
}

/**
 * The e2e tier drives Debian's Chromium (test/console/e2e.test.ts fails, never skips, without it): on a
 * fresh machine the tasks that run that tier install it first, as CI does, when they can (root, apt-get).
 */
function ensureChromium() {
  if (existsSync("/usr/bin/chromium")) return;
  if (process.getuid?.() !== 0 || !existsSync("/usr/bin/apt-get")) {
    console.error("[tollgate] Chromium is missing: the console's browser test will fail (install it with scripts/install-chromium.sh as root)");
    return;
  }
  console.error("[tollgate] installing Debian's Chromium for the console's browser test (scripts/install-chromium.sh) ...");
  if (run("bash", [join(root, "scripts", "install-chromium.sh")]) !== 0) console.error("[tollgate] could not install Chromium: the browser test will fail");
}

if (task === "test" || task === "test:e2e") ensureChromium();
const failed = task === "test" && !typeCheckPasses();
// The servers run with every runtime default (the collector's pacing too); the tests and the CLI do not need it.
const servesTraffic = task === "start" || task === "start:gateway" || task === "start:console";
const args = task in testTiers ? testArguments(testTiers[task]) : [...tasks[task], ...rest];
runForwardingSignals(bun, args, { env: servesTraffic ? withRuntimeDefaults(env) : env }, { failed });
