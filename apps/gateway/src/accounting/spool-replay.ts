import { readdirSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "@tollgate/db";
import { sql } from "drizzle-orm";
import { decodeSpoolLine, type SpoolLine } from "./spool-line";
import { spoolLockName, spoolReadyName } from "./usage-spool";
import type { LeaseSubject } from "./quota-leases";
import { addSubjectDeltas, describeDatabaseError, type UsageBatch, type WrittenUsage, writeUsageBatch } from "./write-usage-batch";

export interface ReplayOptions {
  db: Database;
  dir: string;
  /** This process's own spool, never replayed by itself. */
  ownSpoolId: string;
  rowsPerInsert: number;
  log: (level: "info" | "warn" | "error", message: string, fields?: Record<string, unknown>) => void;
  /** Called after each committed chunk (caches learn the new totals; the ledger does not: not its leases). */
  onWritten?: (written: WrittenUsage) => void;
}

/** Records written per transaction during a replay. */
const RECORDS_PER_CHUNK = 5000;
const SEGMENT_FILE = /^(.+)-(\d{15})\.jsonl$/;

/** True while the process named in a spool's lock file runs (this process included). */
function ownerAlive(dir: string, spoolId: string): boolean {
  let pid: number;
  try {
    pid = Number(JSON.parse(readFileSync(join(dir, spoolLockName(spoolId)), "utf8")).pid);
  } catch {
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Every record of a spool's segments, in sequence order. A segment is read up to its first zero byte (a
 * segment is made at its full size, zeros past its last line); a torn last line (killed mid-write) is skipped.
 */
function readSpool(dir: string, files: string[], log: ReplayOptions["log"]): SpoolLine[] {
  const lines: SpoolLine[] = [];
  for (const file of files.sort()) {
    const bytes = readFileSync(join(dir, file));
    const end = bytes.indexOf(0);
    const text = bytes.toString("utf8", 0, end === -1 ? bytes.byteLength : end);
    for (const raw of text.split("\n")) {
      if (raw.length === 0) continue;
      try {
        lines.push(decodeSpoolLine(raw));
      } catch {
        log("warn", "usage spool: an unreadable line was skipped", { file });
      }
    }
  }
  return lines.sort((a, b) => a.s - b.s);
}

/** The records past the checkpoint, as one batch (null when there are none). */
function batchAfter(lines: SpoolLine[], committedSeq: number): UsageBatch | null {
  const previousKeyUses = new Set<number>();
  const batch: UsageBatch = { logs: [], tokenDeltas: new Map(), userDeltas: new Map(), subjectDeltas: new Map(), previousKeyUses, lastSeq: committedSeq };
  for (const line of lines) {
    if (line.s <= committedSeq) continue;
    batch.logs.push(line.l);
    if (line.p === 1) previousKeyUses.add(line.t);
    if (line.c !== 0) {
      batch.tokenDeltas.set(line.t, (batch.tokenDeltas.get(line.t) ?? 0) + line.c);
      batch.userDeltas.set(line.u, (batch.userDeltas.get(line.u) ?? 0) + line.c);
      addSubjectDeltas(batch.subjectDeltas!, line.b as LeaseSubject[] | undefined, line.c);
    }
    batch.lastSeq = Math.max(batch.lastSeq, line.s);
  }
  return batch.lastSeq > committedSeq ? batch : null;
}

/**
 * Writes the spools left in `dir` by processes that are gone (killed, or stopped while the database was
 * unreachable): each spool's records past its checkpoint, in chunks, each chunk in one transaction that
 * holds the checkpoint row, so that two instances replaying the same spool at once write it once. Then the
 * files go (the checkpoint row stays a week, for a replayer that read them before they went). Returns the
 * number of records written; a spool that cannot be written now (database down) stays for the next attempt.
 */
export async function replayOrphanSpools(options: ReplayOptions): Promise<number> {
  const { dir, db, log } = options;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  const segmentsBySpool = new Map<string, string[]>();
  for (const name of names) {
    const match = SEGMENT_FILE.exec(name);
    if (!match) continue;
    const files = segmentsBySpool.get(match[1]!) ?? [];
    files.push(name);
    segmentsBySpool.set(match[1]!, files);
  }
  let replayed = 0;
  for (const [spoolId, files] of segmentsBySpool) {
    if (spoolId === options.ownSpoolId || ownerAlive(dir, spoolId)) continue;
    const lines = readSpool(dir, files, log);
    let written = 0;
    try {
      for (let start = 0; start < lines.length; start += RECORDS_PER_CHUNK) {
        const chunk = lines.slice(start, start + RECORDS_PER_CHUNK);
        let batchRecords = 0;
        const prepare = (committedSeq: number) => {
          const batch = batchAfter(chunk, committedSeq);
          batchRecords = batch?.logs.length ?? 0;
          return batch;
        };
        const result = await writeUsageBatch(db, prepare, {
          spoolId,
          rowsPerInsert: options.rowsPerInsert,
          log: (message, fields) => log("warn", message, fields),
        });
        if (result.applied) {
          written += batchRecords;
          options.onWritten?.(result);
        }
      }
    } catch (error) {
      log("warn", "usage spool replay failed; will try again", { spool: spoolId, error: describeDatabaseError(error) });
      continue;
    }
    for (const file of files) unlinkQuietly(join(dir, file));
    // The successor a killed process had made ready holds no record: it goes with its spool.
    unlinkQuietly(join(dir, spoolReadyName(spoolId)));
    unlinkQuietly(join(dir, spoolLockName(spoolId)));
    // The checkpoint row stays: another replayer that read these files before they went must still find
    // them written. Rows untouched for a week are of no use to anyone and are deleted.
    await db
      .execute(sql`delete from usage_spool_checkpoints where updated_at < now() - interval '7 days'`)
      .catch(() => {});
    replayed += written;
    log("info", "usage spool replayed", { spool: spoolId, records: lines.length, written });
  }
  return replayed;
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
