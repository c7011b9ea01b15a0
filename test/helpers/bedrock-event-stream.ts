/**
 * AWS event-stream frames (application/vnd.amazon.eventstream) as Bedrock Runtime sends them, encoded by
 * AWS's own codec: ConverseStream events, InvokeModelWithResponseStream chunks (the model's event JSON,
 * base64 in `bytes`) and exceptions.
 */
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";

const codec = new EventStreamCodec(toUtf8, fromUtf8);

const text = (value: string) => ({ type: "string" as const, value });

/** A ConverseStream event frame (`messageStart`, `contentBlockDelta`, `metadata`...). */
export function eventFrame(eventType: string, payload: Record<string, unknown>): Uint8Array {
  return codec.encode({
    headers: { ":event-type": text(eventType), ":content-type": text("application/json"), ":message-type": text("event") },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

/** An InvokeModelWithResponseStream chunk: the model's own event JSON, base64 in `bytes`. */
export function chunkFrame(modelEvent: Record<string, unknown>): Uint8Array {
  return eventFrame("chunk", { bytes: Buffer.from(JSON.stringify(modelEvent)).toString("base64"), p: "abcdefgh" });
}

/** A modeled exception in the stream (`throttlingException`, `modelStreamErrorException`...). */
export function exceptionFrame(exceptionType: string, message: string): Uint8Array {
  return codec.encode({
    headers: { ":exception-type": text(exceptionType), ":content-type": text("application/json"), ":message-type": text("exception") },
    body: fromUtf8(JSON.stringify({ message })),
  });
}

/** Frames joined into one body. */
export function joinFrames(frames: readonly Uint8Array[]): Uint8Array {
  return Buffer.concat(frames);
}
