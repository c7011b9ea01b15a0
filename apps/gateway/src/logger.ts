export type LogLevel = "debug" | "info" | "warn" | "error";
const ranks: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type Logger = (level: LogLevel, message: string, fields?: Record<string, unknown>) => void;

/** One JSON line per event on stdout. Callers never pass secrets: only ids, hashes' absence, and codes. */
export function createLogger(minimum: LogLevel, write: (line: string) => void = (line) => process.stdout.write(line)): Logger {
  const floor = ranks[minimum];
  return (level, message, fields) => {
    if (ranks[level] < floor) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`);
  };
}

export const silentLogger: Logger = () => {};
