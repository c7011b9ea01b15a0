import { closeSync, fdatasync, fdatasyncSync, mkdirSync, openSync, renameSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { open, unlink } from "node:fs/promises";
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
  /** The size of a segment file: a new one is started when a line no longer fits. */
  segmentBytes?: number;
  log: (level: "warn" | "error", message: string, fields?: Record<string, unknown>) => void;
  /** Maps a segment file shared (Bun.mmap); tests pass one that fails, as a file system without mmap does. */
  map?: (path: string) => Uint8Array;
}

interface Segment {
  path: string;
  /** Kept open for fdatasync: a file's mapped pages are written back by an fsync of any of its descriptors. */
  fd: number;
  /**
   * The file, mapped shared: a store into it is a store into the page cache, as a write(2) would make. Null
   * where the file system cannot map it: lines are then written with pwrite(2) at `used`.
   */
  bytes: Buffer | null;
  /** The file's size (zeros past `used`). */
  size: number;
  /** Bytes of lines written (the rest of the file is zeros). */
  used: number;
  lastSeq: number;
}

const DEFAULT_SEGMENT_BYTES = 4 * 1024 * 1024;
/** A segment half full has its successor made ready off the event loop. */
const PREPARE_NEXT_AT = 0.5;
/** After a failure to write, how long appends go without a new attempt (each attempt costs system calls). */
const RETRY_AFTER_MS = 1000;
const ZEROS = new Uint8Array(256 * 1024);

export const spoolLockName = (spoolId: string) => `${spoolId}.lock`;
export const spoolSegmentName = (spoolId: string, firstSeq: number) => `${spoolId}-${String(firstSeq).padStart(15, "0")}.jsonl`;
/** The next segment, made ready (zeros written) before it is needed; renamed to its segment name when used. */
export const spoolReadyName = (spoolId: string) => `${spoolId}.next`;

/** Writes `size` zeros at the start of an open file: its blocks are reserved now (a full disk fails here, not under a store into the mapping). */
function fillWithZeros(fd: number, size: number): void {
  for (let written = 0; written < size; ) written += writeSync(fd, ZEROS, 0, Math.min(ZEROS.byteLength, size - written));
}

/**
 * The durable side of the write-behind: every usage record is written into a local file before `append`
 * returns, so a process killed at any moment (SIGKILL, OOM) leaves every record it accepted in the page
 * cache, and from there on disk; the file is fsync'd every `syncMs`, which bounds what a power loss can take.
 *
 * A segment file is made at its full size (zeros written, so its blocks are reserved and a full disk fails
 * when the file is made, never under a store) and mapped shared: appending a line is a copy into the
 * mapping, which is the page cache itself, with no system call per record (a write(2) per request cost about
 * 5 us of the request thread under load). A segment's successor is prepared off the event loop when it is
 * half full. Replay reads a segment's lines up to its zeros.
 *
 * Records carry increasing sequence numbers, and the write-behind moves this spool's checkpoint
 * (usage_spool_checkpoints) forward in the transaction that writes them, so a replay (spool-replay.ts, at
 * the next start of any instance sharing the folder) writes exactly the records past it. Segments whose
 * records are all committed are deleted.
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
  /** When writes failed, the time before which no new attempt is made. */
  private retryAt = 0;
  /**
   * The successor being made ready (null: none in flight), and whether one is ready. One at a time: a
   * second writer of the same file could write zeros into it after it has become the current segment.
   */
  private preparing: Promise<void> | null = null;
  private nextReady = false;
  private opened = false;
  private closed = false;
  /** Whether a mapping has failed (said once in the log). */
  private unmappable = false;

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
    this.opened = true;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, spoolLockName(this.options.spoolId)), JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }), { mode: 0o600 });
    // A successor left by an earlier process of the same id holds nothing: it is made again.
    removeQuietly(join(dir, spoolReadyName(this.options.spoolId)));
    try {
      this.current = this.openSegment(1, this.segmentBytes);
    } catch (error) {
      this.writeFailed(error);
    }
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
    // Before open() and after close() nothing is written (as with no folder).
    if (!this.opened || this.closed) return line;
    let segment = this.current;
    // A UTF-16 unit is at most 3 bytes of UTF-8: the exact length is only measured near a segment's end.
    if (segment === null || (segment.used + line.length * 3 > segment.size && segment.used + Buffer.byteLength(line) > segment.size)) {
      segment = this.nextSegment(Buffer.byteLength(line));
      if (!segment) return line;
    }
    if (segment.bytes) segment.used += segment.bytes.write(line, segment.used, "utf8");
    else {
      try {
        segment.used += writeSync(segment.fd, line, segment.used, "utf8");
      } catch (error) {
        // The record stays in memory only (as when no segment can be made); a new segment is tried later.
        this.current = null;
        this.closeSegment(segment);
        this.writeFailed(error);
        return line;
      }
    }
    segment.lastSeq = seq;
    this.dirty = true;
    if (this.preparing === null && !this.nextReady && segment.used >= segment.size * PREPARE_NEXT_AT) this.prepareNext();
    return line;
  }

  private get segmentBytes(): number {
    return this.options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
  }

  /**
   * The segment after the current one (closed), for a line of `lineBytes`: the successor made ready, or one
   * made now. Null when it cannot be made (a full or read-only disk): the record is then kept in memory only
   * (usage still goes to the database from there), and no new attempt is made for RETRY_AFTER_MS.
   */
  private nextSegment(lineBytes: number): Segment | null {
    if (this.failed && performance.now() < this.retryAt) return null;
    const old = this.current;
    this.current = null;
    if (old) this.closeSegment(old);
    try {
      this.current = this.openSegment(this.seq, Math.max(this.segmentBytes, lineBytes));
    } catch (error) {
      this.writeFailed(error);
      return null;
    }
    if (this.failed) {
      this.failed = false;
      this.options.log("warn", "usage spool writes work again");
    }
    this.dropCommittedSegments();
    return this.current;
  }

  private writeFailed(error: unknown): void {
    if (!this.failed) this.options.log("error", "usage spool write failed: records are kept in memory only until it works again", { error: String(error) });
    this.failed = true;
    this.retryAt = performance.now() + RETRY_AFTER_MS;
  }

  /** Makes the successor (zeros written) off the event loop, under its own name until it is used. */
  private prepareNext(): void {
    const path = join(this.options.dir!, spoolReadyName(this.options.spoolId));
    const size = this.segmentBytes;
    this.preparing = (async () => {
      const file = await open(path, "w", 0o600);
      try {
        for (let written = 0; written < size; ) written += (await file.write(ZEROS, 0, Math.min(ZEROS.byteLength, size - written))).bytesWritten;
      } finally {
        await file.close();
      }
      if (this.closed) await unlink(path);
      else this.nextReady = true;
    })()
      .catch(() => {
        // Made at rotation instead, where a failure is reported.
      })
      .finally(() => {
        this.preparing = null;
      });
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
    this.closed = true;
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
    if (this.nextReady) removeQuietly(join(dir, spoolReadyName(this.options.spoolId)));
    removeQuietly(join(dir, spoolLockName(this.options.spoolId)));
  }

  /**
   * The segment whose first record is `firstSeq` (named by it): the successor made ready, renamed, or a
   * file of `size` made now.
   */
  private openSegment(firstSeq: number, size: number): Segment {
    const dir = this.options.dir!;
    const path = join(dir, spoolSegmentName(this.options.spoolId, firstSeq));
    let fd: number;
    if (this.nextReady && size === this.segmentBytes) {
      renameSync(join(dir, spoolReadyName(this.options.spoolId)), path);
      fd = openSync(path, "r+");
    } else {
      fd = openSync(path, "w+", 0o600);
      try {
        fillWithZeros(fd, size);
      } catch (error) {
        closeSync(fd);
        removeQuietly(path);
        throw error;
      }
    }
    this.nextReady = false;
    let bytes: Buffer | null = null;
    try {
      const mapped = (this.options.map ?? mapShared)(path);
      bytes = Buffer.from(mapped.buffer, mapped.byteOffset, mapped.byteLength);
    } catch (error) {
      // A file system that cannot map a file shared (some network and FUSE ones) still takes write(2): each
      // line is then written with a system call, and what is promised stays the same.
      if (!this.unmappable) this.options.log("warn", "usage spool files cannot be mapped on this file system: each record is written with a system call", { error: String(error) });
      this.unmappable = true;
    }
    return { path, fd, bytes, size, used: 0, lastSeq: firstSeq - 1 };
  }

  /** A full segment: synced and closed off this thread (its mapping goes with the garbage collector). */
  private closeSegment(old: Segment): void {
    this.closedSegments.push({ path: old.path, lastSeq: old.lastSeq });
    fdatasync(old.fd, () => closeSync(old.fd));
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

function mapShared(path: string): Uint8Array {
  return Bun.mmap(path, { shared: true });
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
