import { describe, expect, test } from "bun:test";
import { isPostgresWriteAfterClose } from "./driver-race-guard";

function errorWithStack(error: Error, stack: string): Error {
  error.stack = stack;
  return error;
}

describe("the postgres.js write-after-close guard", () => {
  test("recognises the driver's TypeError from nextWrite, and nothing else", () => {
    const driverRace = errorWithStack(
      new TypeError("null is not an object (evaluating 'socket.write')"),
      "TypeError: null is not an object (evaluating 'socket.write')\n    at nextWrite (/app/node_modules/.bun/postgres@3.4.9/node_modules/postgres/src/connection.js:255:15)",
    );
    expect(isPostgresWriteAfterClose(driverRace)).toBe(true);
    const ours = errorWithStack(
      new TypeError("null is not an object (evaluating 'socket.write')"),
      "TypeError: null is not an object (evaluating 'socket.write')\n    at relay (/app/apps/gateway/src/streaming/relay-stream.ts:10:1)",
    );
    expect(isPostgresWriteAfterClose(ours)).toBe(false);
    const otherDriverError = errorWithStack(new TypeError("x is undefined"), "TypeError: x is undefined\n    at parse (/app/node_modules/postgres/src/connection.js:1:1)");
    expect(isPostgresWriteAfterClose(otherDriverError)).toBe(false);
    expect(isPostgresWriteAfterClose(new Error("socket.write"))).toBe(false);
    expect(isPostgresWriteAfterClose("socket.write")).toBe(false);
  });
});
