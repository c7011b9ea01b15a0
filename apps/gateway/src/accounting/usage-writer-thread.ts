import type { SharedPglite } from "@tollgate/db";
import { PendingReplies } from "@tollgate/shared";
import { encodeSpoolLine } from "./spool-line";
import type { UsageRecord, UsageSink, UsageWriter, WrittenUsage } from "./usage-writer";

/** What the worker needs to run a UsageWriter: a Postgres pool of its own, or the embedded database's port. */
export interface UsageWorkerSettings {
  database: { url: string; poolSize: number } | { shared: SharedPglite };
  /** Rows per INSERT statement; UsageWriter's default when absent. */
  rowsPerInsert?: number;
  /** Buffered request logs written without waiting for the tick (UsageWriterOptions.writeAtLogs). */
  writeAtLogs?: number | null;
  intervalMs: number;
  maxBufferedLogs: number;
  instanceId: string;
}

export type ToUsageWorker =
  | { type: "init"; settings: UsageWorkerSettings }
  /** Records as their spool lines (encodeSpoolLine), joined: usageRecordsOfText reads them back. */
  | { type: "lines"; text: string }
  | { type: "flush"; id: number }
  | { type: "stop"; id: number; graceMs: number };

export type FromUsageWorker =
  | { type: "written"; written: WrittenUsage; writtenLogs: number; droppedLogs: number; deadLetters: number }
  | { type: "status"; droppedLogs: number; failingSince: number | null }
  | { type: "log"; message: string; fields?: Record<string, unknown> }
  | { type: "done"; id: number; error?: string };

/** Time a stopping worker gets beyond its grace period to close its connections and answer. */
const STOP_MARGIN_MS = 5_000;
/**
 * Records are posted to the worker in batches of HANDOVER_RECORDS, or after HANDOVER_MS when traffic is light:
 * each message wakes the worker. At one connection (a request every 21 ms) a message per request kept the
 * worker at 190-260 µs of CPU per request; with these batches it is about 150 (most of it the write itself).
 * Under load (10,000 calls a second) a message per 32 records woke the worker some 300 times a second, each
 * a post on the request thread and a switch of thread; 256 records a message, an eighth as often.
 * The worker writes once a second anyway; flush() and stop() post what is waiting first.
 */
const HANDOVER_MS = 250;
const HANDOVER_RECORDS = 256;
/*
 * Records cross as their spool lines, joined into one string: the line is already encoded for the spool,
 * and posting one string costs a fraction of a structured clone of 32 record objects (their Dates and
 * arrays included): in a micro-bench, 55-88 µs per message of 32 records cloned against 15-20 µs for the
 * joined lines, on the request thread.
 */

export interface ThreadedUsageWriterOptions {
  settings: UsageWorkerSettings;
  onWritten: (written: WrittenUsage) => void;
  log: (level: "warn" | "error", message: string, fields?: Record<string, unknown>) => void;
  /** Takes over on this thread if the worker dies, so that later requests are still accounted. */
  fallback: () => UsageWriter;
}

/**
 * The write-behind on a worker thread: encoding a second's worth of request-log rows,
 * binding them and reading the results cost the event loop several milliseconds per flush, which every
 * request in flight at that moment waited for (it was most of the gateway's p99 under load). Requests now
 * hand their record over, records go to the worker in batches (a message per record cost about 17 µs under
 * load, mostly waking the other thread), and the worker batches, writes, retries and buffers exactly
 * as UsageWriter does on this thread. Commits come back as messages, in order, so `onWritten` (ledger and
 * caches) runs here as before, and before the `flush()` that wrote them resolves.
 */
export class ThreadedUsageWriter implements UsageSink {
  private readonly worker: Bun.Worker;
  private posted = 0;
  private written = 0;
  private dropped = 0;
  private deadLettered = 0;
  private failing: number | null = null;
  private readonly replies: PendingReplies<void>;
  private replacement: UsageWriter | null = null;
  /** Records waiting for the next hand-over, and their lines (what is posted). */
  private outbox: UsageRecord[] = [];
  private outboxLines: string[] = [];
  private handover: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly options: ThreadedUsageWriterOptions) {
    // The DOM typings of Worker lack ref()/unref(); Bun's own interface has them.
    this.worker = new Worker(new URL("./usage-writer-worker.ts", import.meta.url).href) as unknown as Bun.Worker;
    this.worker.unref();
    // A pending answer keeps the process alive (the worker is otherwise unref'd).
    this.replies = new PendingReplies(this.worker);
    this.worker.onmessage = (event) => this.receive((event as unknown as MessageEvent<FromUsageWorker>).data);
    this.worker.onerror = (event) => this.takeOver(event.message);
    const { database } = options.settings;
    // The embedded database's port moves to the worker with the message that carries it.
    this.worker.postMessage({ type: "init", settings: options.settings } satisfies ToUsageWorker, "shared" in database ? [database.shared.port] : []);
  }

  get queueDepth(): number {
    if (this.replacement) return this.replacement.queueDepth;
    return this.posted - this.written - this.dropped;
  }

  get droppedLogs(): number {
    return this.dropped + (this.replacement?.droppedLogs ?? 0);
  }

  get deadLetters(): number {
    return this.deadLettered + (this.replacement?.deadLetters ?? 0);
  }

  get failingSince(): number | null {
    return this.replacement ? this.replacement.failingSince : this.failing;
  }

  record(record: UsageRecord): void {
    if (this.replacement) return this.replacement.record(record);
    // A record that comes without a spool number crosses as number 0, which the worker reads back as none.
    this.recordLine(record, encodeSpoolLine(record.seq === undefined ? { ...record, seq: 0 } : record));
  }

  recordLine(record: UsageRecord, line: string): void {
    if (this.replacement) return this.replacement.record(record);
    this.posted++;
    this.outbox.push(record);
    this.outboxLines.push(line);
    if (this.outbox.length >= HANDOVER_RECORDS) return this.handOver();
    if (this.handover === null) {
      this.handover = setTimeout(() => this.handOver(), HANDOVER_MS);
      this.handover.unref?.();
    }
  }

  /** Posts the records waiting here; every message to the worker goes after them, so order is kept. */
  private handOver(): void {
    if (this.handover !== null) clearTimeout(this.handover);
    this.handover = null;
    if (this.outbox.length === 0) return;
    const text = this.outboxLines.join("");
    this.outbox = [];
    this.outboxLines = [];
    this.worker.postMessage({ type: "lines", text } satisfies ToUsageWorker);
  }

  start(): void {
    // The worker starts its timer on init.
  }

  flush(): Promise<void> {
    if (this.replacement) return this.replacement.flush();
    return this.request((id) => ({ type: "flush", id }));
  }

  async stop(graceMs = 10_000): Promise<void> {
    if (this.replacement) return this.replacement.stop(graceMs);
    // Like UsageWriter.stop(), this never throws: a shutdown must end. The worker gets its grace period and a
    // little more to close its connections; what it could not write it has logged.
    let deadline: ReturnType<typeof setTimeout> | undefined;
    const outOfTime = new Promise<"late">((resolve) => {
      deadline = setTimeout(() => resolve("late"), graceMs + STOP_MARGIN_MS);
    });
    try {
      const outcome = await Promise.race([this.request((id) => ({ type: "stop", id, graceMs })), outOfTime]);
      if (outcome === "late") this.options.log("error", "usage writer thread did not stop in time", { queued: this.queueDepth });
    } catch (error) {
      this.options.log("warn", "usage writer thread stopped with an error", { error: String(error) });
    } finally {
      clearTimeout(deadline);
      this.worker.terminate();
    }
  }

  private request(message: (id: number) => ToUsageWorker): Promise<void> {
    return this.replies.expect((id) => this.post(message(id)));
  }

  private post(message: ToUsageWorker): void {
    this.handOver();
    this.worker.postMessage(message);
  }

  private receive(message: FromUsageWorker): void {
    switch (message.type) {
      case "written":
        this.written = message.writtenLogs;
        this.dropped = message.droppedLogs;
        this.deadLettered = message.deadLetters;
        this.failing = null;
        this.options.onWritten(message.written);
        return;
      case "status":
        this.dropped = message.droppedLogs;
        this.failing = message.failingSince;
        return;
      case "log":
        this.options.log("warn", message.message, message.fields);
        return;
      case "done":
        this.replies.settle(message.id, message.error === undefined ? { value: undefined } : { error: new Error(message.error) });
        return;
    }
  }

  /** The worker died (a bug, not an outage: those are retried inside it). What it held is lost; say so. */
  private takeOver(reason: string): void {
    if (this.replacement) return;
    if (this.handover !== null) clearTimeout(this.handover);
    this.handover = null;
    const unsent = this.outbox;
    this.outbox = [];
    this.outboxLines = [];
    const lost = this.queueDepth - unsent.length;
    this.options.log("error", "usage writer thread failed; writing on the main thread from now on", { error: reason, lostLogs: lost });
    this.replacement = this.options.fallback();
    for (const record of unsent) this.replacement.record(record);
    this.replacement.start();
    this.replies.rejectAll(new Error(`usage writer thread failed: ${reason}`));
    this.worker.terminate();
  }
}
