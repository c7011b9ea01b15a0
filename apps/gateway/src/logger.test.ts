import { describe, expect, test } from "bun:test";
import { createLogger } from "./logger";

describe("logger", () => {
  test("writes one JSON object per line, lines close in time in one write, below the level not at all", async () => {
    const writes: string[] = [];
    const log = createLogger("info", (text) => writes.push(text));
    log("debug", "hidden");
    log("info", 'a "quoted" message', { requestId: "req_1", status: 200, nested: { ok: true } });
    log("warn", "no fields");
    log("error", "empty fields", {});
    expect(writes).toEqual([]);
    while (writes.length === 0) await Bun.sleep(1);
    expect(writes).toHaveLength(1);
    const lines = writes[0]!.split("\n");
    expect(lines.at(-1)).toBe("");
    const parsed = lines.slice(0, -1).map((line) => JSON.parse(line));
    expect(parsed.map(({ time: _time, ...rest }) => rest)).toEqual([
      { level: "info", message: 'a "quoted" message', requestId: "req_1", status: 200, nested: { ok: true } },
      { level: "warn", message: "no fields" },
      { level: "error", message: "empty fields" },
    ]);
    for (const line of parsed) expect(Number.isNaN(Date.parse(line.time))).toBe(false);
  });
});
