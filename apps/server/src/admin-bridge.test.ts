import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database } from "@tollgate/db";
import type { SecretBox } from "@tollgate/shared";
import { NotFoundError } from "elysia";
import { ADMIN_BRIDGE_PATH, createAdminBridge } from "./admin-bridge";

// The refusals never reach the database: these tests give the bridge none.
const unusedDatabase = {} as Database;
const unusedSecretBox = {} as SecretBox;

function bridgeInScratchFolder() {
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-bridge-"));
  const bridge = createAdminBridge({ dataDir, db: unusedDatabase, secretBox: unusedSecretBox });
  bridge.advertise(4321);
  const file = join(dataDir, "server.json");
  const { adminSecret } = JSON.parse(readFileSync(file, "utf8")) as { adminSecret: string };
  const command = (secret: string, body: string) =>
    new Request(`http://127.0.0.1:4321${ADMIN_BRIDGE_PATH}`, { method: "POST", headers: { authorization: `Bearer ${secret}` }, body });
  return { dataDir, file, bridge, adminSecret, command, cleanup: () => rmSync(dataDir, { recursive: true, force: true }) };
}

describe("the admin bridge", () => {
  test("advertises this process, its port and a secret in server.json readable only by its owner, and withdraws it", () => {
    const scratch = bridgeInScratchFolder();
    try {
      expect(JSON.parse(readFileSync(scratch.file, "utf8"))).toMatchObject({ pid: process.pid, port: 4321 });
      expect(scratch.adminSecret.length).toBeGreaterThanOrEqual(32);
      expect(statSync(scratch.file).mode & 0o777).toBe(0o600);
      scratch.bridge.withdraw();
      expect(existsSync(scratch.file)).toBe(false);
    } finally {
      scratch.cleanup();
    }
  });

  test("answers as an unknown path unless the request comes from loopback with the secret", async () => {
    const scratch = bridgeInScratchFolder();
    try {
      const valid = '{"argv":["user","list"]}';
      await expect(scratch.bridge.handle(scratch.command("wrong", valid), "127.0.0.1")).rejects.toBeInstanceOf(NotFoundError);
      await expect(scratch.bridge.handle(scratch.command(scratch.adminSecret, valid), "10.0.0.7")).rejects.toBeInstanceOf(NotFoundError);
      await expect(scratch.bridge.handle(scratch.command(scratch.adminSecret, valid), null)).rejects.toBeInstanceOf(NotFoundError);
    } finally {
      scratch.cleanup();
    }
  });

  test("refuses a body whose argv is not a list of strings with 400 in the error envelope", async () => {
    const scratch = bridgeInScratchFolder();
    try {
      for (const body of ['{"argv":"user list"}', '{"argv":["user",1]}', "not json"]) {
        const answer = await scratch.bridge.handle(scratch.command(scratch.adminSecret, body), "::1");
        expect(answer.status).toBe(400);
        expect(await answer.json()).toEqual({
          error: { message: "argv must be an array of strings", type: "invalid_request_error", param: "argv", code: "invalid_value" },
        });
      }
    } finally {
      scratch.cleanup();
    }
  });

  test("makes a server.json left by an earlier process (with a looser mode) readable only by its owner", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "tollgate-bridge-"));
    try {
      const file = join(dataDir, "server.json");
      writeFileSync(file, "{}", { mode: 0o644 });
      chmodSync(file, 0o644);
      createAdminBridge({ dataDir, db: unusedDatabase, secretBox: unusedSecretBox }).advertise(4321);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("refuses a body over 1 MiB with 413, by its Content-Length or as it streams", async () => {
    const scratch = bridgeInScratchFolder();
    try {
      const large = `{"argv":["${"x".repeat(1024 * 1024)}"]}`;
      const declared = await scratch.bridge.handle(scratch.command(scratch.adminSecret, large), "127.0.0.1");
      expect(declared.status).toBe(413);
      const bytes = new TextEncoder().encode(large);
      const chunked = new Request(`http://127.0.0.1:4321${ADMIN_BRIDGE_PATH}`, {
        method: "POST",
        headers: { authorization: `Bearer ${scratch.adminSecret}` },
        body: new ReadableStream({
          start(controller) {
            for (let offset = 0; offset < bytes.length; offset += 64 * 1024) controller.enqueue(bytes.subarray(offset, offset + 64 * 1024));
            controller.close();
          },
        }),
      });
      const streamed = await scratch.bridge.handle(chunked, "127.0.0.1");
      expect(streamed.status).toBe(413);
      expect(((await streamed.json()) as { error: { code: string } }).error.code).toBe("request_too_large");
    } finally {
      scratch.cleanup();
    }
  });
});
