import { describe, expect, test } from "bun:test";
import { UpstreamResponseTooLargeError } from "@tollgate/upstream";
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

describe("relayStream and an upstream past its cap", () => {
  test("an item past its cap ends the stream with the error frame, as too_large, and the upstream call is aborted", async () => {
    const outcomes: StreamOutcome[] = [];
    let aborted = false;
    let framedError: unknown = null;
    let index = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (index++ === 0) controller.enqueue(new Uint8Array([1]));
        else controller.error(new UpstreamResponseTooLargeError(4096, "stream event"));
      },
    });
    const relayed = relayStream(source, {
      frame: (bytes) => bytes,
      errorFrame: (_kind, error) => {
        framedError = error;
        return new Uint8Array([9]);
      },
      onFirstItem: () => {},
      onFinish: (outcome) => outcomes.push(outcome),
      abortUpstream: () => {
        aborted = true;
      },
      idleTimeoutMs: 60_000,
    });
    expect(Array.from(new Uint8Array(await new Response(relayed).arrayBuffer()))).toEqual([1, 9]);
    expect(framedError).toBeInstanceOf(UpstreamResponseTooLargeError);
    expect(outcomes).toEqual(["too_large"]);
    expect(aborted).toBe(true);
  });

  test("a failure the framing already knows ends the stream before the next read, not when the upstream sends again", async () => {
    const outcomes: StreamOutcome[] = [];
    let reads = 0;
    let failure: Error | null = null;
    // The second read never resolves: only the pending failure can end the stream.
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        reads++;
        if (reads === 1) controller.enqueue(new Uint8Array([1]));
        else return new Promise(() => {});
      },
    });
    const relayed = relayStream(source, {
      frame: (bytes) => {
        failure = new UpstreamResponseTooLargeError(4096, "stream event");
        return bytes;
      },
      pendingFailure: () => failure,
      errorFrame: () => new Uint8Array([9]),
      onFirstItem: () => {},
      onFinish: (outcome) => outcomes.push(outcome),
      abortUpstream: () => {},
      idleTimeoutMs: 60_000,
    });
    expect(Array.from(new Uint8Array(await new Response(relayed).arrayBuffer()))).toEqual([1, 9]);
    expect(outcomes).toEqual(["too_large"]);
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
