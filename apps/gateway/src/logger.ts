export type LogLevel = "debug" | "info" | "warn" | "error";
const ranks: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type Logger = (level: LogLevel, message: string, fields?: Record<string, unknown>) => void;

/**
 * One JSON object per line on stdout. Lines are gathered and written once per event-loop turn: under load,
 * one write of many lines instead of a synchronous write per request. Callers never pass secrets: ids,
 * codes and timings only.
 */
export function createLogger(minimum: LogLevel, write: (text: string) => void = (text) => process.stdout.write(text)): Logger {
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
    if (pending.length === 0) setImmediate(drain);
    pending.push(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`);
  };
}

export const silentLogger: Logger = () => {};
