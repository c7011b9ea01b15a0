import { UpstreamResponseTooLargeError } from "@tollgate/upstream";

/** How a relayed stream ended; "too_large": an upstream event went past its cap (the channel's fault). */
export type StreamOutcome = "completed" | "cancelled" | "failed" | "stalled" | "too_large";

export interface RelayStreamOptions<Item> {
  /** Turns one upstream item into bytes for the client, or null to skip it. */
  frame(item: Item): Uint8Array | null;
  /** Bytes sent once the upstream ends cleanly (e.g. `data: [DONE]`), if any. */
  closing?(): Uint8Array | null;
  /**
   * The in-band error event sent when the upstream breaks or stalls; null where the format has none (a
   * binary body): the client's stream is then errored, so that a cut answer never looks complete. A
   * "failed" stream's `error` is an UpstreamResponseTooLargeError when a cap cut it (see streamFailure).
   */
  errorFrame(kind: "stalled" | "failed", error: unknown): Uint8Array | null;
  onFirstItem(): void;
  /** Called exactly once: the stream ended, the client went away, the upstream broke or stalled. */
  onFinish(outcome: StreamOutcome, error?: unknown): void;
  /** Cancels the upstream call (client disconnected, stream stalled). */
  abortUpstream(): void;
  /**
   * Longest silence allowed between two upstream items, and the longest a client may leave the stream
   * unread (a client that stops reading would otherwise hold its connection and the upstream call forever:
   * the server's idle timeout is lifted while a call runs).
   */
  idleTimeoutMs: number;
  /**
   * An error the stream is known to end with before anything more is read (a framing that handed over
   * the whole events before an event past its cap): checked before each read, so the end is not left
   * waiting for the upstream's next bytes.
   */
  pendingFailure?(): unknown;
}

class IdleTimeout extends Error {}

/** The client left the stream unread for longer than the idle timeout: its answer is cut, the connection closed. */
export class ClientStalled extends Error {}

/**
 * Relays items to the client as they arrive. Pull-driven (highWaterMark 0): a slow client slows the
 * upstream instead of filling memory. Cancelling the returned stream (client gone) cancels the upstream
 * call; a silence longer than the idle timeout ends the stream with an error event; an upstream that
 * breaks mid-way ends it with an error event too. A client that leaves the stream unread for as long has
 * its stream errored (which closes its connection) and the upstream cancelled, as if it had gone away.
 * Every path reports its outcome once, for billing.
 */
export function relayStream<Item>(source: ReadableStream<Item>, options: RelayStreamOptions<Item>): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let finished = false;
  let sawFirst = false;
  const finish = (outcome: StreamOutcome, error?: unknown) => {
    if (finished) return;
    finished = true;
    options.onFinish(outcome, error);
  };
  // One idle timer per stream, and no timer work per item: a read stamps its start and a handover its end,
  // and the timer, when it fires, re-arms itself for what is left of the allowance (or ends the stream).
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let reading = false;
  let readStartedAt = 0;
  /** When the last pull handed its bytes over: from then on the stream waits for the client. */
  let handedOverAt = 0;
  let upstreamSilent = false;
  let client: ReadableStreamDefaultController<Uint8Array> | null = null;
  const checkIdle = () => {
    idleTimer = undefined;
    if (finished) return;
    if (!reading) {
      // Waiting for the client to pull: a slow client is not the upstream's silence, but one that has not
      // read for the whole allowance has stopped reading.
      const unreadMs = Date.now() - handedOverAt;
      if (unreadMs < options.idleTimeoutMs) {
        idleTimer = setTimeout(checkIdle, options.idleTimeoutMs - unreadMs);
        return;
      }
      const stalled = new ClientStalled(`the client read nothing for ${options.idleTimeoutMs} ms`);
      finish("cancelled", stalled);
      options.abortUpstream();
      reader.cancel().catch(() => {});
      client?.error(stalled);
      return;
    }
    const silentMs = Date.now() - readStartedAt;
    if (silentMs < options.idleTimeoutMs) {
      idleTimer = setTimeout(checkIdle, options.idleTimeoutMs - silentMs);
      return;
    }
    upstreamSilent = true;
    // Cancelling ends the pending read with done: pull() sees `upstreamSilent` and ends the stream with an error.
    reader.cancel().catch(() => {});
  };
  const stopIdleTimer = () => {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = undefined;
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        client = controller;
      },
      async pull(controller) {
        try {
          for (;;) {
            const failure = options.pendingFailure?.();
            if (failure) throw failure;
            readStartedAt = Date.now();
            idleTimer ??= setTimeout(checkIdle, options.idleTimeoutMs);
            reading = true;
            const { done, value } = await reader.read();
            reading = false;
            if (upstreamSilent) throw new IdleTimeout();
            if (done) {
              stopIdleTimer();
              const closing = options.closing?.();
              if (closing) controller.enqueue(closing);
              finish("completed");
              controller.close();
              return;
            }
            if (!sawFirst) {
              sawFirst = true;
              options.onFirstItem();
            }
            const bytes = options.frame(value);
            if (bytes) {
              controller.enqueue(bytes);
              handedOverAt = Date.now();
              return;
            }
          }
        } catch (error) {
          stopIdleTimer();
          if (finished) return;
          const stalled = error instanceof IdleTimeout;
          const tooLarge = error instanceof UpstreamResponseTooLargeError;
          // A cap stops the read: the upstream is not left sending what no one will read.
          if (stalled || tooLarge) options.abortUpstream();
          try {
            const frame = options.errorFrame(stalled ? "stalled" : "failed", error);
            if (frame) {
              controller.enqueue(frame);
              controller.close();
            } else {
              controller.error(error);
            }
          } catch {
            // The client is gone as well.
          }
          reader.cancel().catch(() => {});
          finish(stalled ? "stalled" : tooLarge ? "too_large" : "failed", error);
        }
      },
      cancel() {
        stopIdleTimer();
        finish("cancelled");
        options.abortUpstream();
        reader.cancel().catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}
