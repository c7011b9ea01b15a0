import { type Database, errorCauses } from "@tollgate/db";
import { sql } from "drizzle-orm";

/** A connection could not be opened: the server is down, starting, or cannot be reached. */
const unreachableCodes = new Set([
  "ECONNREFUSED",
  "CONNECT_TIMEOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  // cannot_connect_now: the server is starting up or shutting down.
  "57P03",
]);

/** An open connection was lost (a restart, pg_terminate_backend, a cut): the pool's next one may work. */
const lostCodes = new Set(["CONNECTION_CLOSED", "CONNECTION_DESTROYED", "ECONNRESET", "EPIPE", "57P01", "57P02"]);

export type ConnectionFault = "unreachable" | "lost";

/** What kind of connection failure an error is (postgres.js, the socket, or Postgres itself, wrapped or not); null for any other error. */
export function connectionFault(error: unknown): ConnectionFault | null {
  for (const item of errorCauses(error)) {
    const code = (item as { code?: unknown }).code;
    if (typeof code !== "string") continue;
    if (unreachableCodes.has(code)) return "unreachable";
    // Class 08 is Postgres' "connection exception".
    if (lostCodes.has(code) || code.startsWith("08")) return "lost";
  }
  return null;
}

/** Thrown without a query while the circuit is open. */
export class DatabaseUnreachableError extends Error {
  constructor(cause?: unknown) {
    super("the database is unreachable", { cause });
  }
}

export interface DatabaseCircuitOptions {
  /** Pause before each probe while open (one probe at a time). */
  probeIntervalMs: number;
  log: (level: "warn" | "info", message: string, fields?: Record<string, unknown>) => void;
}

export const defaultProbeIntervalMs = 1000;

/**
 * Remembers that the database cannot be reached, so that what a request needs from it (a new quota lease,
 * a key not in cache) fails at once instead of each request waiting on a connection attempt of its own:
 * postgres.js reconnects a closed connection only after a back-off that grows with every failure.
 *
 * Opened by a connection that could not be opened, or by a lost connection whose retry failed too (a
 * single killed connection is retried on a new one and opens nothing). While it is open a probe
 * (`select 1`) runs every `probeIntervalMs`, one at a time; that probe, or any other query that succeeds,
 * closes it. On embedded PGlite there is no connection to lose, and it never opens.
 */
export class DatabaseCircuit {
  private openedAt: number | null = null;
  private probeTimer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;

  constructor(
    private readonly probe: () => Promise<unknown>,
    private readonly options: DatabaseCircuitOptions,
  ) {}

  get isOpen(): boolean {
    return this.openedAt !== null;
  }

  /**
   * Runs `query` unless the circuit is open (then it throws DatabaseUnreachableError without a query).
   * A failed query is tried again after each pause in `pausesMs` (a killed connection fails the query sent
   * on it while the pool opens a new one), except when the failure says the server cannot be reached.
   */
  async run<Value>(query: () => Promise<Value>, pausesMs: readonly number[] = [20, 100]): Promise<Value> {
    for (let attempt = 0; ; attempt++) {
      if (this.openedAt !== null) throw new DatabaseUnreachableError();
      try {
        const value = await query();
        this.succeeded();
        return value;
      } catch (error) {
        const fault = connectionFault(error);
        const pause = pausesMs[attempt];
        if (fault === "unreachable" || (fault === "lost" && pause === undefined)) this.open(error);
        if (pause === undefined || fault === "unreachable") throw error;
        await Bun.sleep(pause);
      }
    }
  }

  /** A query succeeded: the database is reachable. */
  succeeded(): void {
    if (this.openedAt === null) return;
    this.options.log("info", "database reachable again", { unreachableMs: Date.now() - this.openedAt });
    this.openedAt = null;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
  }

  /**
   * A query made outside run() failed: opens the circuit if the server could not be reached. A lost
   * connection alone does not (the pool's next one may work, and nothing here retried it).
   */
  failed(error: unknown): void {
    if (connectionFault(error) === "unreachable") this.open(error);
  }

  private open(error: unknown): void {
    if (this.openedAt !== null || this.stopped) return;
    this.openedAt = Date.now();
    this.options.log("warn", "database unreachable: quota leases and cache misses fail fast until it answers again", {
      error: String(error),
    });
    this.scheduleProbe();
  }

  stop(): void {
    this.stopped = true;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
  }

  private scheduleProbe(): void {
    this.probeTimer = setTimeout(() => {
      this.probeTimer = null;
      this.probe().then(
        () => this.succeeded(),
        () => {
          if (this.openedAt !== null && !this.stopped) this.scheduleProbe();
        },
      );
    }, this.options.probeIntervalMs);
    this.probeTimer.unref?.();
  }
}

/** The circuit of one database, probed with `select 1` while it is open. */
export function circuitFor(db: Database, log: DatabaseCircuitOptions["log"]): DatabaseCircuit {
  return new DatabaseCircuit(() => db.execute(sql`select 1`), { probeIntervalMs: defaultProbeIntervalMs, log });
}
