export type LogLevel = "debug" | "info" | "warn" | "error";
const ranks: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type Logger = (level: LogLevel, message: string, fields?: Record<string, unknown>) => void;

/**
 * Writes to stdout through Bun's file sink: a fraction of the CPU of process.stdout.write (a Node stream) per
 * write, which counts at one log line per request. What a full pipe still holds at exit gets a last flush
 * (best effort, like any buffered stdout).
 */
function stdoutWriter(): (text: string) => void {
  const sink = Bun.stdout.writer();
  let backlog = false;
  process.on("exit", () => {
    if (backlog) sink.flush();
  });
  return (text) => {
    sink.write(text);
    const flushed = sink.flush();
    if (flushed instanceof Promise) {
      backlog = true;
      flushed.then(
        () => (backlog = false),
        () => {},
      );
    }
  };
}

let isoTimeAt = 0;
let isoTimeText = "";

/** The current time as ISO 8601, formatted once per millisecond (under load, many lines share one). */
function isoTime(): string {
  const now = Date.now();
  if (now !== isoTimeAt) {
    isoTimeAt = now;
    isoTimeText = new Date(now).toISOString();
  }
  return isoTimeText;
}

/** Lines are gathered this long and written together: one write system call for many requests. */
const WRITE_EVERY_MS = 20;

/**
 * One JSON object per line on stdout. Lines are gathered and written every WRITE_EVERY_MS: under load,
 * one write of many lines instead of a write per request. Callers never pass secrets: ids,
 * codes and timings only.
 */
export function createLogger(minimum: LogLevel, write: (text: string) => void = stdoutWriter()): Logger {
  const floor = ranks[minimum];
  let pending: string[] = [];
  const drain = () => {
    const text = pending.join("");
    pending = [];
    write(text);
  };
  // Whatever is still gathered when the process exits is written synchronously.
  process.on("exit", () => {
    if (pending.length > 0) drain();
  });
  return (level, message, fields) => {
    if (ranks[level] < floor) return;
    if (pending.length === 0) setTimeout(drain, WRITE_EVERY_MS).unref();
    // The fields object is serialised as it is and joined after the fixed head (no copy of it per line).
    const head = `{"time":"${isoTime()}","level":"${level}","message":${JSON.stringify(message)}`;
    const rest = fields ? JSON.stringify(fields) : "{}";
    pending.push(rest.length > 2 ? `${head},${rest.slice(1)}\n` : `${head}}\n`);
  };
}

export const silentLogger: Logger = () => {};
