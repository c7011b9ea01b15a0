import { describeUnexpectedError } from "@tollgate/admin";
import { createSecretBox } from "@tollgate/shared";
import {
  dataDirHolder,
  lockDataDirWhenFree,
  migrateDatabase,
  OWNER_ONLY_UMASK,
  openDatabase,
  resolveEncryptionSecret,
  restrictDataDir,
} from "@tollgate/db";
import type { CommandResult } from "./command-context";
import { readCliEnvironment, readVariable } from "./env";
import { findRunningServer, forwardToServer } from "./forward-to-server";
import { keyFromEnvironment } from "./key-from-environment";
import { passwordFromPrompt, readPasswordFromStandardInput } from "./password-from-prompt";
import { runCommand } from "./run-command";

/** A server holds the folder but may still be starting: wait for it to say where it listens. */
async function waitForServer(dataDir: string): Promise<ReturnType<typeof findRunningServer>> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const server = findRunningServer(dataDir);
    if (server !== null || dataDirHolder(dataDir)?.role !== "server" || Date.now() > deadline) return server;
    await Bun.sleep(100);
  }
}

async function runLocally(argv: string[]): Promise<CommandResult> {
  const environment = readCliEnvironment();
  let lock: { release(): void } | null = null;
  if (environment.databaseUrl === undefined) {
    // Only one process may open an embedded data folder: forward to the server that has it, or take it.
    const running = findRunningServer(environment.dataDir) ?? (await waitForServer(environment.dataDir));
    if (running !== null) return forwardToServer(running, argv);
    const taken = await lockDataDirWhenFree(environment.dataDir, "cli", { timeoutMs: 60_000, stopIfServer: true });
    if (!("release" in taken)) {
      const server = taken.role === "server" ? await waitForServer(environment.dataDir) : null;
      if (server !== null) return forwardToServer(server, argv);
      return { exitCode: 1, stdout: "", stderr: `error: the data folder is in use by process ${taken.pid}\n` };
    }
    lock = taken;
    // As the server does: the data folder and the database files this process writes are owner-only.
    process.umask(OWNER_ONLY_UMASK);
    restrictDataDir(environment.dataDir);
  }
  try {
    return await runWithDatabase(environment, argv);
  } finally {
    lock?.release();
  }
}

async function runWithDatabase(environment: ReturnType<typeof readCliEnvironment>, argv: string[]): Promise<CommandResult> {
  const secret = resolveEncryptionSecret({
    secret: environment.secret,
    databaseUrl: environment.databaseUrl,
    dataDir: environment.dataDir,
  });
  const secretBox = await createSecretBox(secret);
  const handle = await openDatabase(
    environment.databaseUrl === undefined
      ? { dataDir: environment.dataDir }
      : { databaseUrl: environment.databaseUrl, poolSize: 2 },
  );
  try {
    await migrateDatabase(handle);
    // PGlite sets its files' modes itself (past the umask): owner-only again once it has written them.
    if (environment.databaseUrl === undefined) restrictDataDir(environment.dataDir);
    return await runCommand(argv, {
      db: handle.db,
      secretBox,
      addressPolicy: { allowPrivateNetworks: environment.allowPrivateNetworks },
      mcpStdioEnabled: readVariable("MCP_STDIO_ENABLED") === "true",
    });
  } finally {
    await handle.close();
  }
}

async function main(): Promise<number> {
  let result: CommandResult;
  try {
    // Secrets named by an environment variable or typed at a prompt, never on the command line.
    let resolved: { argv: string[] } | { error: string } = { argv: process.argv.slice(2) };
    for (const flag of ["--key", "--webhook-secret", "--password", "--credential"]) {
      if ("argv" in resolved) resolved = keyFromEnvironment(resolved.argv, (name) => readVariable(name), flag);
    }
    if ("argv" in resolved) resolved = await passwordFromPrompt(resolved.argv, readPasswordFromStandardInput);
    result = "error" in resolved ? { exitCode: 2, stdout: "", stderr: `error: ${resolved.error}\n` } : await runLocally(resolved.argv);
  } catch (error) {
    result = { exitCode: 1, stdout: "", stderr: `error: ${describeUnexpectedError(error)}\n` };
  }
  if (result.stdout !== "") await Bun.write(Bun.stdout, result.stdout);
  if (result.stderr !== "") await Bun.write(Bun.stderr, result.stderr);
  return result.exitCode;
}

process.exit(await main());
