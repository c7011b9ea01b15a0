import { UpstreamResponseTooLargeError } from "@tollgate/upstream";

/** What a stream's closing error event says, in whichever client format renders it. */
export interface StreamFailure {
  /** The status the call would have had, had it failed before its first byte (the stream's own is 200). */
  status: number;
  code: "upstream_idle_timeout" | "upstream_response_too_large" | "upstream_stream_error";
  message: string;
}

/** The error event's fields for a stream ended by its relay (relay-stream.ts's errorFrame kinds). */
export function streamFailure(kind: "stalled" | "failed", error: unknown): StreamFailure {
  if (kind === "stalled") return { status: 504, code: "upstream_idle_timeout", message: "The upstream stopped sending data; the stream was ended." };
  if (error instanceof UpstreamResponseTooLargeError) return { status: 502, code: "upstream_response_too_large", message: `${error.message} The stream was ended.` };
  return { status: 502, code: "upstream_stream_error", message: "The upstream stream was interrupted." };
}
