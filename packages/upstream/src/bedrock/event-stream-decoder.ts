import { EventStreamCodec, type Message } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { concatBytes } from "@tollgate/shared";
import type { EventSourceMessage } from "eventsource-parser";
import { DEFAULT_UPSTREAM_MAX_EVENT_BYTES, UpstreamResponseTooLargeError } from "../fetch-upstream";
import type { StreamDecoderOptions } from "../provider-adapter";

/** An event-stream frame's fixed part: total length, headers length, prelude CRC, message CRC (4 bytes each). */
const FRAME_OVERHEAD = 16;

/** Bedrock's modeled stream exceptions -> the Anthropic error type an /v1/messages client reads from an `error` event. */
const anthropicErrorTypes: Record<string, string> = {
  throttlingException: "rate_limit_error",
  serviceUnavailableException: "overloaded_error",
  modelTimeoutException: "timeout_error",
  validationException: "invalid_request_error",
};

function headerText(message: Message, name: string): string | undefined {
  const header = message.headers[name];
  return header?.type === "string" ? header.value : undefined;
}

/** An exception (or error) frame as an `error` event in Anthropic's shape, which both relays read. */
function errorEvent(exceptionType: string, message: string): EventSourceMessage {
  const type = anthropicErrorTypes[exceptionType] ?? "api_error";
  return { event: "error", id: undefined, data: JSON.stringify({ type: "error", error: { type, message: `${exceptionType}: ${message}` } }) };
}

/** One decoded frame as the event the adapter's transformers read; null for a frame with nothing to say. */
function eventOf(message: Message): EventSourceMessage | null {
  const messageType = headerText(message, ":message-type");
  const payload = toUtf8(message.body);
  if (messageType === "exception") {
    const exceptionType = headerText(message, ":exception-type") ?? "exception";
    let text = payload;
    try {
      text = String((JSON.parse(payload) as { message?: unknown }).message ?? payload);
    } catch {
      // Not JSON: the payload is the message.
    }
    return errorEvent(exceptionType, text);
  }
  if (messageType === "error") return errorEvent(headerText(message, ":error-code") ?? "error", headerText(message, ":error-message") ?? payload);
  const eventType = headerText(message, ":event-type");
  if (!eventType) return null;
  if (eventType === "chunk") {
    // InvokeModelWithResponseStream: the model's own stream event, base64 in `bytes` (Claude's: Anthropic's SSE event JSON).
    const bytes = (JSON.parse(payload) as { bytes?: unknown }).bytes;
    if (typeof bytes !== "string") return null;
    const inner = Buffer.from(bytes, "base64").toString("utf8");
    const type = (JSON.parse(inner) as { type?: unknown }).type;
    return { event: typeof type === "string" ? type : "message", id: undefined, data: inner };
  }
  return { event: eventType, id: undefined, data: payload };
}

/**
 * Bedrock's binary AWS event-stream (application/vnd.amazon.eventstream) -> events: frames are cut by their
 * length prelude here (refused past `maxEventBytes` before any of the frame is buffered), and each whole frame
 * is decoded, its CRCs checked, by AWS's own codec. ConverseStream's events come out as `{event: type, data:
 * JSON}`, InvokeModel's chunks as the model's own events, exceptions as an `error` event.
 */
export function createBedrockStreamDecoder(options: StreamDecoderOptions = {}): TransformStream<Uint8Array, EventSourceMessage> {
  const maxEventBytes = options.maxEventBytes ?? DEFAULT_UPSTREAM_MAX_EVENT_BYTES;
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  let chunks: Uint8Array[] = [];
  let buffered = 0;

  const frameLength = (): number | null => {
    if (buffered < 4) return null;
    const head = chunks[0]!.byteLength >= 4 ? chunks[0]! : concatBytes(chunks, buffered);
    return new DataView(head.buffer, head.byteOffset, 4).getUint32(0, false);
  };

  return new TransformStream<Uint8Array, EventSourceMessage>({
    transform(chunk, controller) {
      chunks.push(chunk);
      buffered += chunk.byteLength;
      for (;;) {
        const length = frameLength();
        if (length === null) return;
        if (length > maxEventBytes + FRAME_OVERHEAD) throw new UpstreamResponseTooLargeError(maxEventBytes, "stream event");
        if (length < FRAME_OVERHEAD) throw new Error("Bedrock sent a malformed event-stream frame.");
        if (buffered < length) return;
        const all = chunks.length === 1 ? chunks[0]! : concatBytes(chunks, buffered);
        const rest = all.subarray(length);
        chunks = rest.byteLength > 0 ? [rest] : [];
        buffered = rest.byteLength;
        let event: EventSourceMessage | null;
        try {
          event = eventOf(codec.decode(all.subarray(0, length)));
        } catch {
          throw new Error("Bedrock sent an event-stream frame that does not decode (bad checksum or payload).");
        }
        if (event) controller.enqueue(event);
      }
    },
    flush() {
      if (buffered > 0) throw new Error("Bedrock's event stream ended inside a frame.");
    },
  });
}
