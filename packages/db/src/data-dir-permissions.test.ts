import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { restrictDataDir } from "./data-dir-permissions";

const made: string[] = [];
afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe("restrictDataDir", () => {
  test("takes group and other permissions off the folder and everything under it, keeping the owner's", () => {
    const parent = mkdtempSync(join(tmpdir(), "tollgate-perms-"));
    made.push(parent);
    const dataDir = join(parent, "data");
    mkdirSync(join(dataDir, "pglite", "base"), { recursive: true });
    writeFileSync(join(dataDir, "secret.key"), "x");
    writeFileSync(join(dataDir, "server.json"), "{}");
    writeFileSync(join(dataDir, "pglite", "base", "1259"), "x");
    writeFileSync(join(dataDir, "pglite", "pg_ctl"), "x");
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, "pglite"), 0o775);
    chmodSync(join(dataDir, "pglite", "base"), 0o755);
    chmodSync(join(dataDir, "secret.key"), 0o644);
    chmodSync(join(dataDir, "server.json"), 0o666);
    chmodSync(join(dataDir, "pglite", "base", "1259"), 0o644);
    chmodSync(join(dataDir, "pglite", "pg_ctl"), 0o755);
    const outside = join(parent, "outside");
    writeFileSync(outside, "x");
    chmodSync(outside, 0o644);
    symlinkSync(outside, join(dataDir, "link"));

    expect(restrictDataDir(dataDir)).toEqual([]);

    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(join(dataDir, "pglite"))).toBe(0o700);
    expect(modeOf(join(dataDir, "pglite", "base"))).toBe(0o700);
    expect(modeOf(join(dataDir, "secret.key"))).toBe(0o600);
    expect(modeOf(join(dataDir, "server.json"))).toBe(0o600);
    expect(modeOf(join(dataDir, "pglite", "base", "1259"))).toBe(0o600);
    expect(modeOf(join(dataDir, "pglite", "pg_ctl"))).toBe(0o700);
    // A link is not followed out of the folder.
    expect(modeOf(outside)).toBe(0o644);
  });

  test("does nothing for a folder that does not exist yet", () => {
    const parent = mkdtempSync(join(tmpdir(), "tollgate-perms-"));
    made.push(parent);
    restrictDataDir(join(parent, "missing"));
    expect(() => statSync(join(parent, "missing"))).toThrow();
  });
});
