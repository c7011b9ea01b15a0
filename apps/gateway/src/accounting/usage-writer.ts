import type { Database } from "@tollgate/db";
import type { LeaseSubject } from "./quota-leases";
import { addSubjectDeltas, describeDatabaseError, type RequestLogRow, type UsageBatch, type WrittenUsage, writeUsageBatch } from "./write-usage-batch";

export type { RequestLogRow, WrittenUsage } from "./write-usage-batch";
export { rollUp } from "./write-usage-batch";

/** What one finished request leaves to write: its log row and what it cost whom. */
export interface UsageRecord {
  log: RequestLogRow;
  tokenId: number;
  userId: number;
  cost: number;
  /**
   * The period and budget subjects the call's spend counts in (Reservation.periodSubjects): the period it
   * was admitted in, whenever it ends.
   */
  periodSubjects?: LeaseSubject[];
  /** The call came with the secret a roll replaced (in its grace period): its last use is recorded. */
  previousKey?: boolean;
  /**
   * The record's sequence number in this process's spool (assigned by UsageSpool); the writer numbers
   * records that come without one itself.
   */
  seq?: number;
}

export interface UsageWriterOptions {
  intervalMs: number;
  /** Log rows kept while the database is unreachable; spend deltas are aggregated and never dropped. */
  maxBufferedLogs: number;
  /** Called after a commit with the new database values, so caches and the ledger move together. */
  onWritten: (written: WrittenUsage) => void;
  log: (message: string, fields?: Record<string, unknown>) => void;
  /**
   * This process's id: its spool's checkpoint row and its rows in quota_leases (spend written back shrinks
   * its leases in the same transaction). Unique per process lifetime.
   */
  instanceId: string;
  /** Request-log rows per INSERT statement. */
  rowsPerInsert?: number;
  /**
   * Request logs that, once buffered, are written at once instead of at the next tick (default
   * WRITE_AT_LOGS): under load a batch, and the memory its encoding takes, stays this size. null: the tick only.
   */
  writeAtLogs?: number | null;
  /** Yield to the event loop between INSERTs (embedded PGlite executes on the request thread). */
  yieldBetweenInserts?: boolean;
}

/** What requests and the process see of the write-behind, whichever thread runs it. */
export interface UsageSink {
  record(record: UsageRecord): void;
  /**
   * The same as record(), for a sink that can take the record's spool line (encodeSpoolLine, its `seq`
   * set) in its place: the write-behind thread is handed lines, not records.
   */
  recordLine?(record: UsageRecord, line: string): void;
  /** Writes everything recorded before the call; rejects if the database refused it (it stays buffered). */
  flush(): Promise<void>;
  start(): void;
  /** Stops the timer and writes what is left, retrying for up to `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  /** Request logs recorded and not yet committed. */
  readonly queueDepth: number;
  /** Request logs dropped because the buffer was full during an outage (spend is never dropped). */
  readonly droppedLogs: number;
  /** Request-log rows the database refused, set aside in request_log_dead_letters. */
  readonly deadLetters: number;
  /** When writes started failing (Date.now()), or null while they succeed. */
  readonly failingSince: number | null;
}

const ROWS_PER_INSERT = 5000;
/**
 * A buffer this full is written without waiting for the timer. At 5,000 calls a second a one-second tick
 * made batches of 5,000 rows, and the write-behind thread's heap peaked at about 30 MB while it decoded,
 * held and encoded them; batches of 1,000 keep the gateway under 200 MB at 1,000 streams (about 15 MB
 * less). Each batch is one transaction of a dozen statements (a few ms of the thread's CPU on a slow
 * machine), so this costs about 3 us of that thread per request under load; 2,000 cost less and saved
 * about half as much (docs/benchmarks.md). Light traffic still writes once per tick.
 */
const WRITE_AT_LOGS = 1000;


/**
 * Write-behind of request logs, token spend and user balances: requests only append to memory; a timer
 * writes everything in one transaction per batch. On failure nothing is lost: the same batch is retried
 * with back-off (unchanged, so that the spool checkpoint can tell whether an attempt whose answer was lost
 * had committed), while new records gather behind it. stop() writes what is left (SIGTERM/SIGINT); what
 * it cannot write stays in the spool file for a later replay.
 */
export class UsageWriter implements UsageSink {
  private logs: RequestLogRow[] = [];
  private tokenDeltas = new Map<number, number>();
  private previousKeyUses = new Set<number>();
  private userDeltas = new Map<number, number>();
  private subjectDeltas = new Map<LeaseSubject, number>();
  /** Highest sequence number recorded into the buffers. */
  private recordedSeq = 0;
  /** A batch taken from the buffers whose write failed: written again, as it is, before anything newer. */
  private pending: UsageBatch | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> | null = null;
  private failures = 0;
  droppedLogs = 0;
  writtenLogs = 0;
  deadLetters = 0;
  failingSince: number | null = null;

  constructor(
    private readonly db: Database,
    private readonly options: UsageWriterOptions,
  ) {}

  record(record: UsageRecord): void {
    if (this.logs.length >= this.options.maxBufferedLogs) {
      this.logs.shift();
      this.droppedLogs++;
      if (this.droppedLogs === 1 || this.droppedLogs % 1000 === 0) {
        this.options.log("usage buffer full: oldest request logs dropped (spend is kept)", { dropped: this.droppedLogs });
      }
    }
    this.recordedSeq = Math.max(this.recordedSeq + (record.seq === undefined ? 1 : 0), record.seq ?? 0);
    this.logs.push(record.log);
    if (record.previousKey) this.previousKeyUses.add(record.tokenId);
    if (record.cost !== 0) {
      this.tokenDeltas.set(record.tokenId, (this.tokenDeltas.get(record.tokenId) ?? 0) + record.cost);
      this.userDeltas.set(record.userId, (this.userDeltas.get(record.userId) ?? 0) + record.cost);
      addSubjectDeltas(this.subjectDeltas, record.periodSubjects, record.cost);
    }
    // Started and not stopped (stop() writes what is left itself), nothing being written, and writes
    // working: during an outage the timer's back-off decides when to try again.
    const writeAt = this.options.writeAtLogs === undefined ? WRITE_AT_LOGS : this.options.writeAtLogs;
    if (writeAt !== null && this.logs.length >= writeAt && this.timer !== null && this.flushing === null && this.failingSince === null) {
      this.flush().catch((error) => {
        this.options.log("usage write failed; will retry", { error: describeDatabaseError(error), attempt: this.failures + 1 });
      });
    }
  }

  /** Request logs not yet committed: buffered, plus the batch being written or retried. */
  get queueDepth(): number {
    return this.logs.length + (this.pending?.logs.length ?? 0);
  }

  start(): void {
    this.schedule(this.options.intervalMs);
  }

  /**
   * Writes everything recorded before this call. A write already under way may have started before the
   * latest records, so it is awaited first and a new one started for what is left.
   */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing.catch(() => {});
    if (!this.hasWork()) return;
    this.flushing = this.writePending().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  /** Stops the timer and writes what is left, retrying for up to `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const deadline = Date.now() + graceMs;
    // A write under way holds records that are no longer in the buffers: it is awaited too, so that the
    // database is never closed (or the thread ended) in the middle of its transaction.
    while (this.hasWork() || this.flushing) {
      try {
        await this.flush();
      } catch {
        if (Date.now() > deadline) {
          this.options.log("usage could not be written before shutdown: it stays in the spool for the next start", { logs: this.queueDepth });
          return;
        }
        await Bun.sleep(200);
      }
    }
  }

  private hasWork(): boolean {
    return this.pending !== null || this.logs.length > 0 || this.tokenDeltas.size > 0 || this.userDeltas.size > 0;
  }

  private schedule(delay: number): void {
    this.timer = setTimeout(async () => {
      try {
        if (this.hasWork()) await this.flush();
        this.failures = 0;
      } catch (error) {
        this.failures++;
        this.options.log("usage write failed; will retry", { error: describeDatabaseError(error), attempt: this.failures });
      }
      if (this.timer) {
        const backoff = Math.min(30_000, this.options.intervalMs * 2 ** Math.min(this.failures, 5));
        this.schedule(this.failures > 0 ? backoff : this.options.intervalMs);
      }
    }, delay);
    this.timer.unref?.();
  }

  /** The batch that failed last, then what gathered in the buffers since. */
  private async writePending(): Promise<void> {
    if (this.pending) await this.write(this.pending);
    if (this.logs.length > 0 || this.tokenDeltas.size > 0 || this.userDeltas.size > 0) {
      const batch: UsageBatch = {
        logs: this.logs,
        tokenDeltas: this.tokenDeltas,
        userDeltas: this.userDeltas,
        subjectDeltas: this.subjectDeltas,
        previousKeyUses: this.previousKeyUses,
        lastSeq: this.recordedSeq,
      };
      this.logs = [];
      this.previousKeyUses = new Set();
      this.tokenDeltas = new Map();
      this.userDeltas = new Map();
      this.subjectDeltas = new Map();
      this.pending = batch;
      await this.write(batch);
    }
  }

  private async write(batch: UsageBatch): Promise<void> {
    let written: WrittenUsage;
    try {
      written = await writeUsageBatch(this.db, (committedSeq) => (batch.lastSeq > committedSeq ? batch : null), {
        spoolId: this.options.instanceId,
        rowsPerInsert: this.options.rowsPerInsert ?? ROWS_PER_INSERT,
        yieldBetweenInserts: this.options.yieldBetweenInserts,
        log: this.options.log,
      });
    } catch (error) {
      this.failingSince ??= Date.now();
      throw error;
    }
    this.pending = null;
    this.failingSince = null;
    this.writtenLogs += batch.logs.length;
    this.deadLetters += written.deadLetters;
    if (!written.applied) {
      // Committed by an earlier attempt whose answer was lost: the ledger still has to learn of it.
      written.tokenDeltas = batch.tokenDeltas;
      written.userDeltas = batch.userDeltas;
      written.subjectDeltas = batch.subjectDeltas ?? new Map();
    }
    this.options.onWritten(written);
  }
}
