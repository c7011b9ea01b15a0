import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { E2E_FILES, INTEGRATION_FILES_BESIDE_CODE, listTestFiles, TIERS, testFilesOf, tierOf } from "./test-tiers.mjs";

const root = join(import.meta.dir, "..");
const transpiler = new Bun.Transpiler({ loader: "tsx" });

/** What a test needs that makes it more than a unit test: a database, a server or socket, Redis, a process, a browser. */
const beyondUnit =
  /\b(freshDatabase|openDatabase|openPostgres|migrateDatabase|RedisClient|launchChromium|startServerProcess|startGatewayProcess|startGateway|startFake\w+)\b|\bBun\.(serve|listen|connect|spawn|spawnSync)\b|node:child_process|node:net\b/;

/** Starts a browser or the server or CLI as a process of its own. */
const endToEnd = /\b(launchChromium|startServerProcess|startGatewayProcess|runCli)\b|\bBun\.spawn(Sync)?\(/;

/** Helpers a test brings with it (under test/, or named for tests), as opposed to the code under test. */
function isTestSupport(path: string): boolean {
  return path.startsWith("test/") || /\.test\.tsx?$|test-support|test-harness|fixture/.test(basename(path));
}

function resolveRelative(from: string, specifier: string): string | null {
  const base = resolve(root, dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) {
    if (/\.tsx?$/.test(candidate) && existsSync(candidate)) return relative(root, candidate);
  }
  return null;
}

/** The first line of a test or of a helper it imports (transitively) that needs more than a unit test, or null. */
function firstNeedBeyondUnit(testFile: string): string | null {
  const seen = new Set<string>();
  const queue = [testFile];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(join(root, file), "utf8");
    const match = source.match(beyondUnit);
    if (match) return `${file}: ${match[0]}`;
    for (const { path } of transpiler.scanImports(source)) {
      if (!path.startsWith(".")) continue;
      const imported = resolveRelative(file, path);
      if (imported && isTestSupport(imported)) queue.push(imported);
    }
  }
  return null;
}

describe("test tiers", () => {
  const files = listTestFiles(root);
  // This file names the markers it looks for, and needs none of them.
  const self = relative(root, import.meta.path);

  test("every test file bun finds belongs to exactly one tier, and the tiers together run them all", async () => {
    const found = (await Array.fromAsync(new Bun.Glob("**/*.test.{ts,tsx}").scan({ cwd: root })))
      .filter((path) => !path.split("/").some((part) => part === "node_modules" || part.startsWith(".")))
      .sort();
    expect(files).toEqual(found);
    expect(files.length).toBeGreaterThan(150);
    const tiersOf = new Map(files.map((file) => [file, TIERS.filter((tier) => testFilesOf(root, [tier]).includes(file))]));
    expect([...tiersOf].filter(([, tiers]) => tiers.length !== 1)).toEqual([]);
    expect(testFilesOf(root, TIERS)).toEqual(files);
  });

  test("every file the lists name exists, and the integration list names only tests beside the code", () => {
    expect([...E2E_FILES, ...INTEGRATION_FILES_BESIDE_CODE].filter((file) => !files.includes(file))).toEqual([]);
    expect(INTEGRATION_FILES_BESIDE_CODE.filter((file) => file.startsWith("test/"))).toEqual([]);
    expect(E2E_FILES.filter((file) => INTEGRATION_FILES_BESIDE_CODE.includes(file))).toEqual([]);
  });

  test("no unit test needs a database, a server, a socket, Redis or a process, through its helpers either", () => {
    const units = files.filter((file) => tierOf(file) === "unit" && file !== self);
    expect(units.length).toBeGreaterThan(50);
    expect(units.map(firstNeedBeyondUnit).filter((need) => need !== null)).toEqual([]);
  });

  test("each test beside the code listed as integration needs more than a unit test, so none is kept out of test:unit for nothing", () => {
    expect(INTEGRATION_FILES_BESIDE_CODE.filter((file) => firstNeedBeyondUnit(file) === null)).toEqual([]);
  });

  test("a test that starts a browser or a process of ours is in the e2e tier", () => {
    const starters = files.filter(
      (file) => file !== self && endToEnd.test(readFileSync(join(root, file), "utf8")) && tierOf(file) !== "e2e",
    );
    // Redis' own server, started per test, is a service the integration test needs, not a process of ours.
    expect(starters).toEqual(["apps/gateway/src/policy/redis-rate-limiter.test.ts"]);
  });
});
