import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeSpoolLine } from "./spool-line";
import { UsageSpool } from "./usage-spool";
import type { UsageRecord } from "./usage-writer";

const folders: string[] = [];
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-spool-"));
  folders.push(dir);
  return dir;
}

function record(requestId: string, cost = 1): UsageRecord {
  return {
    tokenId: 7,
    userId: 3,
    cost,
    log: { createdAt: new Date(1_700_000_000_000), requestId, userId: 3, tokenId: 7, endpoint: "chat", model: "gpt-x", status: 200, latencyMs: 4 },
  };
}

/** What a replay reads of a folder's segments: each file up to its zeros, line by line, in file order. */
function spooledRequestIds(dir: string): string[] {
  const ids: string[] = [];
  for (const name of readdirSync(dir).filter((file) => file.endsWith(".jsonl")).sort()) {
    const bytes = readFileSync(join(dir, name));
    const end = bytes.indexOf(0);
    for (const line of bytes.toString("utf8", 0, end === -1 ? bytes.byteLength : end).split("\n")) {
      if (line) ids.push(decodeSpoolLine(line).l.requestId);
    }
  }
  return ids;
}

const waitFor = async (check: () => boolean) => {
  for (let tries = 0; tries < 200 && !check(); tries++) await Bun.sleep(5);
  return check();
};

describe("the usage spool file", () => {
  test("a record is in the file as soon as append returns, before any sync or close", () => {
    const dir = folder();
    const spool = new UsageSpool({ dir, spoolId: "a", syncMs: 60_000, log: () => {} });
    spool.open();
    spool.append(record("req_1"));
    spool.append(record("req_2"));
    // Another reader of the file (a replay after a kill -9) sees what the mapping holds: the page cache.
    expect(spooledRequestIds(dir)).toEqual(["req_1", "req_2"]);
    spool.close();
  });

  test("on a file system that cannot map a file, each record is written with a system call, still before append returns", () => {
    const dir = folder();
    const logged: string[] = [];
    const spool = new UsageSpool({
      dir,
      spoolId: "w",
      syncMs: 60_000,
      segmentBytes: 4096,
      log: (_level, message) => logged.push(message),
      map: () => {
        throw new Error("ENODEV: mmap not supported");
      },
    });
    spool.open();
    const ids: string[] = [];
    for (let index = 1; index <= 60; index++) {
      ids.push(`req_${index}`);
      spool.append(record(`req_${index}`));
      // What a replay after a kill -9 reads, at every step: every record appended so far.
      if (index % 15 === 0) expect(spooledRequestIds(dir)).toEqual(ids);
    }
    // 60 records of about 200 bytes do not fit one 4 KiB segment: rotation works the same way.
    expect(readdirSync(dir).filter((name) => name.endsWith(".jsonl")).length).toBeGreaterThan(1);
    expect(logged.filter((message) => message.includes("cannot be mapped"))).toHaveLength(1);
    spool.close();
  });

  test("a segment is made at its full size, so a full disk fails when it is made and not under a store", () => {
    const dir = folder();
    const spool = new UsageSpool({ dir, spoolId: "b", syncMs: 60_000, segmentBytes: 64 * 1024, log: () => {} });
    spool.open();
    spool.append(record("req_1"));
    const [segment] = readdirSync(dir).filter((name) => name.endsWith(".jsonl"));
    expect(statSync(join(dir, segment!)).size).toBe(64 * 1024);
    // Its blocks are written (zeros), not a sparse hole: a store into the mapping never allocates.
    expect(statSync(join(dir, segment!)).blocks * 512).toBeGreaterThanOrEqual(64 * 1024);
    spool.close();
  });

  test("records go on in new segments, each named by its first sequence number, and every one is read back in order", async () => {
    const dir = folder();
    const spool = new UsageSpool({ dir, spoolId: "c", syncMs: 5, segmentBytes: 4096, log: () => {} });
    spool.open();
    const ids: string[] = [];
    for (let index = 1; index <= 120; index++) {
      ids.push(`req_${index}`);
      spool.append(record(`req_${index}`));
      // Let the successor being made off the event loop be ready now and then, as it is under load.
      if (index % 10 === 0) await Bun.sleep(2);
    }
    const segments = readdirSync(dir).filter((name) => name.endsWith(".jsonl")).sort();
    expect(segments.length).toBeGreaterThan(3);
    expect(segments[0]).toBe("c-000000000000001.jsonl");
    expect(spooledRequestIds(dir)).toEqual(ids);
    // Each segment starts at the record after the previous segment's last.
    let expected = 1;
    for (const name of segments) {
      expect(Number(/-(\d{15})\.jsonl$/.exec(name)![1])).toBe(expected);
      const bytes = readFileSync(join(dir, name));
      expected += bytes.toString("utf8", 0, bytes.indexOf(0) === -1 ? bytes.byteLength : bytes.indexOf(0)).split("\n").filter(Boolean).length;
    }
    expect(expected).toBe(121);
    // Committed segments go, and closing with everything committed leaves nothing (no successor either).
    spool.committed(120);
    spool.close();
    expect(await waitFor(() => readdirSync(dir).length === 0)).toBe(true);
  });

  test("a record that comes after close (a call ending during shutdown) is numbered but writes no new file", () => {
    const dir = folder();
    const spool = new UsageSpool({ dir, spoolId: "f", syncMs: 60_000, segmentBytes: 4096, log: () => {} });
    spool.open();
    const first = record("req_1");
    spool.append(first);
    spool.committed(1);
    spool.close();
    expect(readdirSync(dir)).toEqual([]);
    const late = record("req_late");
    expect(spool.append(late)).toContain("req_late");
    expect(late.seq).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });

  test("segments made while a successor is still being prepared keep every record intact (one preparer at a time)", async () => {
    const dir = folder();
    const spool = new UsageSpool({ dir, spoolId: "g", syncMs: 5, segmentBytes: 4096, log: () => {} });
    spool.open();
    const ids: string[] = [];
    // Bursts without a pause: segments fill and are made while a successor's zeros are still being written.
    for (let burst = 0; burst < 6; burst++) {
      for (let index = 0; index < 100; index++) {
        ids.push(`req_${burst}_${index}`);
        spool.append(record(`req_${burst}_${index}`));
      }
      await Bun.sleep(burst % 2 === 0 ? 0 : 5);
    }
    await Bun.sleep(50);
    expect(spooledRequestIds(dir)).toEqual(ids);
    spool.close();
  });

  test("a line longer than a segment gets a segment of its own size", () => {
    const dir = folder();
    const spool = new UsageSpool({ dir, spoolId: "d", syncMs: 60_000, segmentBytes: 4096, log: () => {} });
    spool.open();
    spool.append(record("req_small"));
    const long = record("req_long");
    long.log.model = "m".repeat(10_000);
    spool.append(long);
    spool.append(record("req_after"));
    expect(spooledRequestIds(dir)).toEqual(["req_small", "req_long", "req_after"]);
    spool.close();
  });

  test("a segment that cannot be made keeps records in memory only, says so once, and the spool works again when it can", async () => {
    const dir = join(folder(), "spool");
    const logged: string[] = [];
    const spool = new UsageSpool({ dir, spoolId: "e", syncMs: 60_000, segmentBytes: 4096, log: (_level, message) => logged.push(message) });
    spool.open();
    spool.append(record("req_kept"));
    // The folder goes (a disk unmounted, say): the segment after this one cannot be made.
    rmSync(dir, { recursive: true, force: true });
    const lines: string[] = [];
    for (let index = 0; index < 60; index++) lines.push(spool.append(record(`req_${index}`)));
    expect(lines).toHaveLength(60);
    expect(lines.every((line) => line.endsWith("\n") && decodeSpoolLine(line.slice(0, -1)).l.requestId.startsWith("req_"))).toBe(true);
    expect(logged.filter((message) => message.startsWith("usage spool write failed"))).toHaveLength(1);
    mkdirSync(dir, { recursive: true });
    // Attempts are spaced (each costs system calls): the next one after a second succeeds.
    await Bun.sleep(1100);
    spool.append(record("req_back"));
    expect(logged).toContain("usage spool writes work again");
    expect(spooledRequestIds(dir)).toEqual(["req_back"]);
    spool.close();
  });
});
