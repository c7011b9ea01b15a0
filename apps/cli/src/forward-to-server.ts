import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CommandResult } from "./command-context";

/** What a gateway running on the embedded database writes to `${dataDir}/server.json` while it runs. */
export interface ServerInfo {
  pid: number;
  port: number;
  adminSecret: string;
}

function isServerInfo(value: unknown): value is ServerInfo {
  const info = value as Partial<ServerInfo> | null;
  return (
    typeof info === "object" &&
    info !== null &&
    Number.isSafeInteger(info.pid) &&
    (info.pid as number) > 0 &&
    Number.isSafeInteger(info.port) &&
    (info.port as number) > 0 &&
    (info.port as number) < 65_536 &&
    typeof info.adminSecret === "string" &&
    info.adminSecret !== ""
  );
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as { code?: string }).code === "EPERM";
  }
}

/**
 * The running server that owns the embedded database, if any. Only one process can open a PGlite data
 * folder, so while the server runs the CLI must send it the command instead of opening the folder.
 */
export function findRunningServer(dataDir: string): ServerInfo | null {
  const file = join(dataDir, "server.json");
  if (!existsSync(file)) return null;
  let info: unknown;
  try {
    info = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return null;
  }
  if (!isServerInfo(info) || !isProcessAlive(info.pid)) return null;
  return info;
}

function isCommandResult(value: unknown): value is CommandResult {
  const result = value as Partial<CommandResult> | null;
  return (
    typeof result === "object" &&
    result !== null &&
    Number.isInteger(result.exitCode) &&
    typeof result.stdout === "string" &&
    typeof result.stderr === "string"
  );
}

/** Runs the command on the server (POST /internal/admin-cli); never throws. */
export async function forwardToServer(server: ServerInfo, argv: readonly string[]): Promise<CommandResult> {
  const url = `http://127.0.0.1:${server.port}/internal/admin-cli`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { Authorization: `Bearer ${server.adminSecret}`, "Content-Type": "application/json" },
      body: JSON.stringify({ argv }),
    });
  } catch {
    return {
      exitCode: 1,
      stdout: "",
      stderr:
        `error: the server (pid ${server.pid}) that owns the embedded database does not answer on port ${server.port}; ` +
        "if no Tollgate server is running, delete server.json in the data folder and retry\n",
    };
  }
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok || !isCommandResult(body)) {
    return {
      exitCode: 1,
      stdout: "",
      stderr: `error: the server refused the admin command (HTTP ${response.status})\n`,
    };
  }
  return body;
}
