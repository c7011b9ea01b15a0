import { describe, expect, test } from "bun:test";
import { UpstreamResponseTooLargeError } from "@tollgate/upstream";
import { afterLastBlankLine, EventSizeLimit } from "./event-size-limit";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("afterLastBlankLine", () => {
  test("finds the end of the last event whatever the line ends (LF, CR LF, CR)", () => {
    expect(afterLastBlankLine(bytes("data: 1\n\ndata: 2"), undefined)).toBe(9);
    expect(afterLastBlankLine(bytes("data: 1\r\n\r\ndata: 2"), undefined)).toBe(11);
    expect(afterLastBlankLine(bytes("data: 1\r\rdata: 2"), undefined)).toBe(9);
    expect(afterLastBlankLine(bytes("data: 1\n\ndata: 2\n\n"), undefined)).toBe(18);
  });

  test("a single line end, or CR LF alone, is not a blank line", () => {
    expect(afterLastBlankLine(bytes("event: x\ndata: 1\r\n"), undefined)).toBe(-1);
    expect(afterLastBlankLine(bytes("data: 1"), undefined)).toBe(-1);
  });

  test("a blank line split across two chunks is seen from the byte before", () => {
    expect(afterLastBlankLine(bytes("\ndata: 2"), 10)).toBe(1);
    expect(afterLastBlankLine(bytes("\r\ndata: 2"), 10)).toBe(2);
    expect(afterLastBlankLine(bytes("\ndata: 2"), 13)).toBe(-1);
  });
});

describe("EventSizeLimit", () => {
  test("many small events pass however long the stream, an event past the cap does not", () => {
    const limit = new EventSizeLimit(64);
    for (let index = 0; index < 1000; index++) expect(limit.accept(bytes(`data: ${index}\n\n`))).toBeGreaterThan(0);
    expect(limit.exceeded).toBeNull();
    expect(limit.accept(bytes("data: "))).toBe(6);
    for (let index = 0; index < 5; index++) limit.accept(bytes("aaaaaaaaaa"));
    expect(limit.exceeded).toBeNull();
    expect(limit.accept(bytes("aaaaaaaaaaaaaaaaaaaa"))).toBe(0);
    expect(limit.exceeded).toBeInstanceOf(UpstreamResponseTooLargeError);
  });

  test("past the cap, the whole events before the oversized one are still accepted", () => {
    const limit = new EventSizeLimit(16);
    const chunk = bytes(`data: 1\n\ndata: 2\n\ndata: ${"x".repeat(40)}`);
    expect(limit.accept(chunk)).toBe(18);
    expect(limit.exceeded).not.toBeNull();
  });
});
