import { closeSync, fdatasync, fdatasyncSync, mkdirSync, openSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { unlink } from "node:fs/promises";
import { join } from "node:path";
import { encodeSpoolLine } from "./spool-line";
import type { UsageRecord } from "./usage-writer";

export interface UsageSpoolOptions {
  /** Folder of the spool files; null numbers records without writing them anywhere (tests). */
  dir: string | null;
  /** This process's instance id: the spool's name and its checkpoint row. */
  spoolId: string;
  /** How often written lines are fsync'd. */
  syncMs: number;
  /** A segment file is closed and a new one started past this size. */
  segmentBytes?: number;
  log: (level: "warn" | "error", message: string, fields?: Record<string, unknown>) => void;
}

interface Segment {
  path: string;
  fd: number;
  lastSeq: number;
  bytes: number;
}

const DEFAULT_SEGMENT_BYTES = 4 * 1024 * 1024;

export const spoolLockName = (spoolId: string) => `${spoolId}.lock`;
export const spoolSegmentName = (spoolId: string, firstSeq: number) => `${spoolId}-${String(firstSeq).padStart(15, "0")}.jsonl`;

/**
 * The durable side of the write-behind: every usage record is appended to a local file, with the write
 * system call made before `append` returns, so a process killed at any moment (SIGKILL, OOM) leaves every
 * record it accepted in the page cache, and from there on disk; the file is fsync'd every `syncMs`, which
 * bounds what a power loss can take. Records carry increasing sequence numbers, and the write-behind moves
 * this spool's checkpoint (usage_spool_checkpoints) forward in the transaction that writes them, so a
 * replay (spool-replay.ts, at the next start of any instance sharing the folder) writes exactly the
 * records past it. Segments whose records are all committed are deleted.
 */
export class UsageSpool {
  private seq = 0;
  private committedSeq = 0;
  private current: Segment | null = null;
  private readonly closedSegments: Array<{ path: string; lastSeq: number }> = [];
  private dirty = false;
  private syncing = false;
  private syncTimer: ReturnType<typeof setInterval> | null = null;
  private failed = false;

  constructor(private readonly options: UsageSpoolOptions) {}

  get id(): string {
    return this.options.spoolId;
  }

  /** Highest sequence number handed out. */
  get lastSeq(): number {
    return this.seq;
  }

  /** Creates the folder, claims the spool with a lock file naming this process, opens the first segment. */
  open(): void {
    const { dir } = this.options;
    if (!dir) return;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, spoolLockName(this.options.spoolId)), JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }), { mode: 0o600 });
    this.current = this.openSegment(1);
    this.syncTimer = setInterval(() => this.sync(), Math.max(1, this.options.syncMs));
    this.syncTimer.unref?.();
  }

  /**
   * Numbers the record (its `seq` is set) and, with a folder, writes its line; returns the line, which the
   * write-behind thread is handed instead of the record (a string crosses threads for a fraction of what
   * a structured clone of the record costs).
   */
  append(record: UsageRecord): string {
    const seq = ++this.seq;
    record.seq = seq;
    const line = encodeSpoolLine(record);
    const segment = this.current;
    if (!segment) return line;
    try {
      segment.bytes += writeSync(segment.fd, line);
      segment.lastSeq = seq;
      this.dirty = true;
      if (segment.bytes >= (this.options.segmentBytes ?? DEFAULT_SEGMENT_BYTES)) this.rotate();
    } catch (error) {
      // A full or read-only disk must not stop requests: usage still goes to the database from memory.
      if (!this.failed) this.options.log("error", "usage spool write failed: records are kept in memory only until it works again", { error: String(error) });
      this.failed = true;
      return line;
    }
    if (this.failed) {
      this.failed = false;
      this.options.log("warn", "usage spool writes work again");
    }
    return line;
  }

  /** The write-behind committed every record up to `seq`: segments that hold nothing newer go. */
  committed(seq: number): void {
    if (seq <= this.committedSeq) return;
    this.committedSeq = seq;
    this.dropCommittedSegments();
  }

  private dropCommittedSegments(): void {
    const seq = this.committedSeq;
    while (this.closedSegments.length > 0 && this.closedSegments[0]!.lastSeq <= seq) {
      const { path } = this.closedSegments.shift()!;
      unlink(path).catch(() => {});
    }
  }

  /** True when every record handed out has been committed. */
  get drained(): boolean {
    return this.committedSeq >= this.seq;
  }

  /**
   * Last fsync, then: everything committed -> the files and the lock go; otherwise the segments stay for
   * a replay and only the lock goes (this process no longer owns them).
   */
  close(): void {
    if (this.syncTimer) clearInterval(this.syncTimer);
    this.syncTimer = null;
    const { dir } = this.options;
    if (!dir) return;
    const segment = this.current;
    this.current = null;
    if (segment) {
      try {
        if (this.dirty) fdatasyncSyncSafe(segment.fd);
      } finally {
        closeSync(segment.fd);
      }
      this.closedSegments.push({ path: segment.path, lastSeq: segment.lastSeq });
    }
    if (this.drained) {
      for (const { path } of this.closedSegments.splice(0)) removeQuietly(path);
    } else {
      this.options.log("warn", "usage not yet written stays in the spool; the next start of a gateway on this folder writes it", {
        spool: this.options.spoolId,
        records: this.seq - this.committedSeq,
      });
    }
    removeQuietly(join(dir, spoolLockName(this.options.spoolId)));
  }

  private openSegment(firstSeq: number): Segment {
    const path = join(this.options.dir!, spoolSegmentName(this.options.spoolId, firstSeq));
    return { path, fd: openSync(path, "a", 0o600), lastSeq: firstSeq - 1, bytes: 0 };
  }

  private rotate(): void {
    const old = this.current!;
    this.current = this.openSegment(this.seq + 1);
    this.closedSegments.push({ path: old.path, lastSeq: old.lastSeq });
    // Its last lines may not be synced yet: sync before closing, off this thread.
    fdatasync(old.fd, () => closeSync(old.fd));
    this.dropCommittedSegments();
  }

  /** fsync off the event loop (libuv's pool); one at a time. */
  private sync(): void {
    const segment = this.current;
    if (!segment || !this.dirty || this.syncing) return;
    this.dirty = false;
    this.syncing = true;
    fdatasync(segment.fd, (error) => {
      this.syncing = false;
      if (error && !this.failed) this.options.log("error", "usage spool fsync failed", { error: String(error) });
    });
  }
}

function fdatasyncSyncSafe(fd: number): void {
  try {
    fdatasyncSync(fd);
  } catch {
    // Closing without a last sync still leaves the lines in the page cache.
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
