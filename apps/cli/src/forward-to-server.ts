import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isProcessAlive } from "@tollgate/db";
import { z } from "zod";
import type { CommandResult } from "./command-context";

/** What a gateway running on the embedded database writes to `${dataDir}/server.json` while it runs. */
const serverInfoSchema = z.object({
  pid: z.int().positive(),
  port: z.int().min(1).max(65_535),
  adminSecret: z.string().min(1),
});
export type ServerInfo = z.infer<typeof serverInfoSchema>;

/** What POST /internal/admin-cli answers. */
const commandResultSchema = z.object({ exitCode: z.int(), stdout: z.string(), stderr: z.string() });

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
  const parsed = serverInfoSchema.safeParse(info);
  if (!parsed.success || !isProcessAlive(parsed.data.pid)) return null;
  return parsed.data;
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
  const body = commandResultSchema.safeParse(await response.json().catch(() => null));
  if (!response.ok || !body.success) {
    return {
      exitCode: 1,
      stdout: "",
      stderr: `error: the server refused the admin command (HTTP ${response.status})\n`,
    };
  }
  return body.data;
}
