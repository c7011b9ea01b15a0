export interface ListenerCheckOptions {
  intervalMs: number;
  /** Time allowed for the echo of a ping once it was sent. */
  echoTimeoutMs: number;
  /** NOTIFYs ping number `sequence` (through the pool, not the LISTEN connection). */
  send(sequence: number): Promise<unknown>;
  /** Drops the LISTEN connection and listens on a new one (whose onConnect flushes the caches). */
  reconnect(): void;
  log: (level: "warn", message: string, fields?: Record<string, unknown>) => void;
}

/** Echo time allowed by default: a few seconds, never more than one check interval. */
export function defaultEchoTimeoutMs(intervalMs: number): number {
  return Math.min(3000, intervalMs);
}

/**
 * Proves that the LISTEN connection still delivers. A connection whose backend or network path froze stays
 * open without error, and every invalidation sent meanwhile would be lost in silence: so every `intervalMs`
 * this instance NOTIFYs a ping that only it heeds, and when the echo has not come back within
 * `echoTimeoutMs` it has the listener reconnect. A ping that cannot be sent (the database is away) proves
 * nothing and is skipped: postgres.js reopens a listener that closed by itself.
 */
export class ListenerCheck {
  private sent = 0;
  private heardUpTo = 0;
  private checking = false;
  private running = false;
  private echoTimer: ReturnType<typeof setTimeout> | null = null;
  /** Reconnections this check forced. */
  reconnects = 0;

  constructor(private readonly options: ListenerCheckOptions) {}

  /** Arms the check: from now on check() (run every `intervalMs` by the gateway's jobs) sends its pings. */
  start(): void {
    this.running = true;
  }

  get intervalMs(): number {
    return this.options.intervalMs;
  }

  /** The echo of ping `sequence` arrived. */
  heard(sequence: number): void {
    if (sequence > this.heardUpTo) this.heardUpTo = sequence;
  }

  async check(): Promise<void> {
    if (this.checking || !this.running) return;
    this.checking = true;
    const sequence = ++this.sent;
    try {
      await this.options.send(sequence);
    } catch {
      this.checking = false;
      return;
    }
    this.echoTimer = setTimeout(() => {
      this.echoTimer = null;
      this.checking = false;
      if (this.heardUpTo >= sequence || !this.running) return;
      this.reconnects++;
      this.options.log("warn", "the LISTEN connection did not deliver this instance's check: reconnecting it and flushing the caches", {
        echoTimeoutMs: this.options.echoTimeoutMs,
      });
      this.options.reconnect();
    }, this.options.echoTimeoutMs);
    this.echoTimer.unref?.();
  }

  stop(): void {
    this.running = false;
    if (this.echoTimer) clearTimeout(this.echoTimer);
    this.echoTimer = null;
  }
}
