import type { DatabaseHandle } from "@tollgate/db";
import type { SecretBox, UpstreamAddressPolicy } from "@tollgate/shared";
import type { Logger } from "../logger";
import type { Job } from "../services/jobs";
import { McpDirectory, type McpOptions } from "./mcp-directory";
import { McpSessions } from "./mcp-sessions";

/** The MCP gateway's state on one instance: the registered servers and their connections, and the client sessions. */
export interface McpServices {
  directory: McpDirectory;
  sessions: McpSessions;
  jobs: Job[];
  stop(): Promise<void>;
}

export function createMcpServices(input: {
  database: DatabaseHandle;
  secretBox: SecretBox;
  log: Logger;
  options: { mcp: McpOptions; maxBodyBytes: number; upstreamAddressPolicy: UpstreamAddressPolicy };
}): McpServices {
  const { options } = input;
  const directory = new McpDirectory(input.database.db, input.secretBox, input.log, options.mcp, options.upstreamAddressPolicy);
  const sessions = new McpSessions(directory, options.maxBodyBytes);
  return {
    directory,
    sessions,
    jobs: [{ name: "mcp-session-prune", intervalMs: 60_000, run: () => sessions.prune() }],
    async stop() {
      await sessions.closeAll();
      await directory.close();
    },
  };
}
