import type { UsageSpool } from "./usage-spool";
import type { UsageRecord, UsageSink } from "./usage-writer";

/**
 * The write-behind as requests see it: each record goes to the spool file first (numbered, written before
 * record() returns), then to the writer that moves it into the database. stop() closes the spool after the
 * writer: whatever the writer could not write by then stays in the spool's files.
 */
export class SpooledUsageSink implements UsageSink {
  constructor(
    readonly writer: UsageSink,
    private readonly spool: UsageSpool,
  ) {}

  record(record: UsageRecord): void {
    const line = this.spool.append(record);
    if (this.writer.recordLine) this.writer.recordLine(record, line);
    else this.writer.record(record);
  }

  flush(): Promise<void> {
    return this.writer.flush();
  }

  start(): void {
    this.spool.open();
    this.writer.start();
  }

  async stop(graceMs?: number): Promise<void> {
    try {
      await this.writer.stop(graceMs);
    } finally {
      this.spool.close();
    }
  }

  get queueDepth(): number {
    return this.writer.queueDepth;
  }

  get droppedLogs(): number {
    return this.writer.droppedLogs;
  }

  get deadLetters(): number {
    return this.writer.deadLetters;
  }

  get failingSince(): number | null {
    return this.writer.failingSince;
  }
}
