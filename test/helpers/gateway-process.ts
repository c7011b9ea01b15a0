import { afterAll, beforeAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DatabaseHandle, openDatabase } from "@tollgate/db";
import { type FreshDatabase, freshDatabase, seedDataFolder, usePostgres } from "./fresh-database";
import { TEST_SECRET } from "./gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./timeouts";

const root = join(import.meta.dir, "..", "..");

/**
 * The environment of a server process under test: this process's own, port 0 on loopback, its data folder,
 * and the test file's database (Postgres: its URL and the suite's secret; embedded: neither), then `overrides`.
 */
export function serverEnvironment(
  dataDir: string,
  database: { url?: string } | null,
  overrides: Record<string, string> = {},
): Record<string, string | undefined> {
  return {
    ...process.env,
    PORT: "0",
    HOST: "127.0.0.1",
    TOLLGATE_DATA_DIR: dataDir,
    DATABASE_URL: database?.url ?? "",
    TOLLGATE_SECRET: database ? TEST_SECRET : "",
    ...overrides,
  };
}

/** What the server processes of a test file run on: a data folder, and on Postgres a fresh database. */
export interface ServerFiles {
  readonly dataDir: string;
  /** Null when the processes run embedded (in the data folder). */
  readonly database: FreshDatabase | null;
  /** serverEnvironment on them. */
  environment(overrides?: Record<string, string>): Record<string, string | undefined>;
  /** A handle on what the processes wrote (embedded: only once no process holds the data folder). */
  open(): Promise<DatabaseHandle>;
}

/**
 * The server files of the calling file or describe block: made before its tests (`prefix` names the data
 * folder; embedded, it holds a migrated database already: seedDataFolder), removed after them; read them
 * inside a test.
 */
export function serverFilesForBlock(prefix: string): ServerFiles {
  let dataDir: string | undefined;
  let database: FreshDatabase | null = null;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), prefix));
    if (usePostgres) database = await freshDatabase();
    else await seedDataFolder(dataDir);
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, SETUP_TIMEOUT_MS);
  const folder = () => {
    if (!dataDir) throw new Error("the block's server files are made in beforeAll: read them inside a test");
    return dataDir;
  };
  return {
    get dataDir() {
      return folder();
    },
    get database() {
      return database;
    },
    environment: (overrides = {}) => serverEnvironment(folder(), database, overrides),
    open: () => (database ? openDatabase({ databaseUrl: database.url }) : openDatabase({ dataDir: folder() })),
  };
}

export interface ServerProcess {
  child: ReturnType<typeof Bun.spawn>;
  /** Where it listens, on 127.0.0.1, without a path (http://127.0.0.1:PORT). */
  origin: string;
  /** Everything the process printed on stdout so far. */
  output(): string;
}

export interface GatewayProcess extends ServerProcess {
  /** Base URL with /v1, on 127.0.0.1. */
  baseUrl: string;
}

/**
 * Starts the server (`npm start`'s entry, apps/server) with `environment` and resolves once it listens;
 * `argv` picks a mode (`["gateway"]` is `npm run start:gateway`, `["console"]` `npm run start:console`).
 */
export async function startServerProcess(environment: Record<string, string | undefined>, argv: string[] = []): Promise<ServerProcess> {
  const child = Bun.spawn([process.execPath, join(root, "apps/server/src/index.ts"), ...argv], {
    env: environment,
    cwd: root,
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = child.stdout.getReader();
  let output = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`server exited before listening: ${output}`);
    output += new TextDecoder().decode(value);
    const match = /"message":"tollgate (?:gateway|console) listening","url":"(http:\/\/[^/"]+)/.exec(output);
    if (match) {
      // Keep draining stdout so the child never blocks on a full pipe.
      void (async () => {
        for (;;) {
          const chunk = await reader.read();
          if (chunk.done) return;
          output += new TextDecoder().decode(chunk.value);
        }
      })();
      return { child, origin: match[1]!.replace("localhost", "127.0.0.1"), output: () => output };
    }
  }
}

/** Starts the server in a mode that serves /v1 (all-in-one unless `argv` says `gateway`). */
export async function startGatewayProcess(environment: Record<string, string | undefined>, argv: string[] = []): Promise<GatewayProcess> {
  const server = await startServerProcess(environment, argv);
  return { ...server, baseUrl: `${server.origin}/v1` };
}

/** Runs the operator CLI against the same environment (forwarded to a running embedded server). */
export function runCli(environment: Record<string, string | undefined>, ...argv: string[]) {
  const result = Bun.spawnSync([process.execPath, join(root, "apps/cli/src/index.ts"), ...argv], { env: environment, cwd: root });
  return { exitCode: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}
