import { describe, expect, test } from "bun:test";
import { ClientStalled, relayStream, type StreamOutcome } from "./relay-stream";

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

describe("relayStream with a client that stops reading", () => {
  test("a stream left unread for the idle timeout is errored, its upstream cancelled, and the outcome reported once", async () => {
    const outcomes: Array<[StreamOutcome, unknown]> = [];
    let upstreamCancelled = false;
    let aborted = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array([7]));
      },
      cancel() {
        upstreamCancelled = true;
      },
    });
    const relayed = relayStream(source, {
      frame: (bytes) => bytes,
      errorFrame: () => null,
      onFirstItem: () => {},
      onFinish: (outcome, error) => outcomes.push([outcome, error]),
      abortUpstream: () => aborted++,
      idleTimeoutMs: 50,
    });
    const reader = relayed.getReader();
    expect((await reader.read()).value).toEqual(new Uint8Array([7]));
    // The client reads no more: the stream does not wait for it forever.
    const deadline = Date.now() + 10_000;
    while (outcomes.length === 0 && Date.now() < deadline) await Bun.sleep(10);
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]![0]).toBe("cancelled");
    expect(outcomes[0]![1]).toBeInstanceOf(ClientStalled);
    expect([upstreamCancelled, aborted]).toEqual([true, 1]);
    await expect(reader.read()).rejects.toBeInstanceOf(ClientStalled);
  });

  test("a client that reads slowly, but within the idle timeout each time, gets the whole stream", async () => {
    const outcomes: StreamOutcome[] = [];
    let sent = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 5) controller.enqueue(new Uint8Array([sent]));
        else controller.close();
      },
    });
    const relayed = relayStream(source, {
      frame: (bytes) => bytes,
      errorFrame: () => null,
      onFirstItem: () => {},
      onFinish: (outcome) => outcomes.push(outcome),
      abortUpstream: () => {},
      idleTimeoutMs: 200,
    });
    const reader = relayed.getReader();
    const received: number[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received.push(value[0]!);
      await Bun.sleep(60);
    }
    expect(received).toEqual([1, 2, 3, 4, 5]);
    expect(outcomes).toEqual(["completed"]);
  });
});
