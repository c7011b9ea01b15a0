import { describe, expect, test } from "bun:test";
import { relayStream, type StreamOutcome } from "./relay-stream";

/** An upstream that sends `chunks` and then breaks. */
function breakingSource(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream({
    pull(controller) {
      if (index < chunks.length) controller.enqueue(chunks[index++]!);
      else controller.error(new Error("upstream connection reset"));
    },
  });
}

describe("relayStream without an error frame (binary answers)", () => {
  test("a broken upstream errors the client's stream, so that a cut file never reads as complete", async () => {
    const outcomes: StreamOutcome[] = [];
    const relayed = relayStream(breakingSource([new Uint8Array([1, 2, 3])]), {
      frame: (bytes) => bytes,
      errorFrame: () => null,
      onFirstItem: () => {},
      onFinish: (outcome) => outcomes.push(outcome),
      abortUpstream: () => {},
      idleTimeoutMs: 60_000,
    });
    const reader = relayed.getReader();
    expect((await reader.read()).value).toEqual(new Uint8Array([1, 2, 3]));
    await expect(reader.read()).rejects.toThrow("upstream connection reset");
    expect(outcomes).toEqual(["failed"]);
  });
});
