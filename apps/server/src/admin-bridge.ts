import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "@tollgate/db";
import { declaresTooLarge, NON_API_MAX_BODY_BYTES, type SecretBox, secretsEqual, type UpstreamAddressPolicy, withCappedBody } from "@tollgate/shared";
import { NotFoundError } from "elysia";

/** Where the CLI sends its commands (apps/cli/src/forward-to-server.ts). */
export const ADMIN_BRIDGE_PATH = "/internal/admin-cli";

const loopbackAddresses = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

/** A command's argv arrives at once from the CLI on the same host. */
const BODY_READ_TIMEOUT_MS = 30_000;

function tooLargeResponse(): Response {
  const error = { message: `Request body exceeds the limit of ${NON_API_MAX_BODY_BYTES} bytes.`, type: "invalid_request_error", param: null, code: "request_too_large" };
  return Response.json({ error }, { status: 413 });
}

/**
 * The embedded admin bridge. With the embedded database only this process may open the data folder, so
 * the operator CLI forwards its commands here while the server runs: POST /internal/admin-cli from
 * loopback, with the secret this process writes to `${dataDir}/server.json` (mode 0600: readable only by
 * the folder's owner). The gateway knows nothing of it; the server mounts it on the gateway's app.
 */
export interface AdminBridge {
  /**
   * Runs the command in the request's body ({"argv": [...]}) and answers the CLI's result. A request not
   * from loopback or without the secret is answered as any unknown path is (the gateway's 404).
   */
  handle(request: Request, socketAddress: string | null): Promise<Response>;
  /** Writes server.json: the CLI forwards to this process from now on. */
  advertise(port: number): void;
  /** Removes server.json (first thing on shutdown): the CLI no longer forwards here. */
  withdraw(): void;
}

export function createAdminBridge(options: { dataDir: string; db: Database; secretBox: SecretBox; addressPolicy?: UpstreamAddressPolicy; mcpStdioEnabled?: boolean }): AdminBridge {
  const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url");
  const serverFile = join(options.dataDir, "server.json");
  return {
    async handle(request, socketAddress) {
      if (!loopbackAddresses.has(socketAddress ?? "") || !secretsEqual(request.headers.get("authorization") ?? "", `Bearer ${secret}`)) {
        throw new NotFoundError();
      }
      if (declaresTooLarge(request, NON_API_MAX_BODY_BYTES)) return tooLargeResponse();
      let tooLarge = false;
      const capped = withCappedBody(request, {
        maxBytes: NON_API_MAX_BODY_BYTES,
        timeoutMs: BODY_READ_TIMEOUT_MS,
        tooLarge: () => (tooLarge = true),
        tooSlow: () => new Error("the body did not arrive in time"),
      });
      const body = (await capped.json().catch(() => null)) as { argv?: unknown } | null;
      if (tooLarge) return tooLargeResponse();
      if (!body || !Array.isArray(body.argv) || !body.argv.every((item) => typeof item === "string")) {
        const error = { message: "argv must be an array of strings", type: "invalid_request_error", param: "argv", code: "invalid_value" };
        return Response.json({ error }, { status: 400 });
      }
      // The CLI's commands are loaded by the first forwarded command, not by every server that never gets one.
      const { runCommand } = await import("@tollgate/cli/run-command");
      return Response.json(await runCommand(body.argv as string[], { db: options.db, secretBox: options.secretBox, addressPolicy: options.addressPolicy, mcpStdioEnabled: options.mcpStdioEnabled }));
    },
    advertise(port) {
      writeFileSync(serverFile, JSON.stringify({ pid: process.pid, port, adminSecret: secret }), { mode: 0o600 });
      // The mode above applies only to a new file: one left by a crash keeps its own.
      chmodSync(serverFile, 0o600);
    },
    withdraw() {
      rmSync(serverFile, { force: true });
    },
  };
}
