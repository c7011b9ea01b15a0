import { readUpstreamText, UpstreamResponseTooLargeError } from "@tollgate/upstream";
import { errors } from "../errors";
import type { GatewayServices } from "../gateway-services";
import type { ForwardedResponse } from "./forward-with-failover";

type ReadServices = Pick<GatewayServices, "options" | "health" | "metrics" | "log">;

/**
 * A whole (non-streamed) 200 answer's text, read as it arrives under the exchange's two bounds: at most
 * UPSTREAM_MAX_BODY_BYTES (decoded: a gzip bomb is stopped at the cap too), and done by the exchange's
 * deadline (UPSTREAM_TIMEOUT_MS from the attempt's start, not only the headers). Past either, the upstream
 * call is aborted, the channel is charged a failure (it answered, then failed: its fault, not the client's)
 * and 502 upstream_response_too_large or 504 upstream_timeout is thrown. A client that left ends the read
 * with its abort, thrown as it came; a body that breaks off is 502 upstream_unreachable.
 */
export async function readWholeAnswer(
  services: ReadServices,
  forwarded: ForwardedResponse<unknown>,
  requestId: string,
  clientSignal: AbortSignal | undefined,
): Promise<string> {
  let timedOut = false;
  const timer = setTimeout(
    () => {
      timedOut = true;
      forwarded.abort();
    },
    Math.max(0, forwarded.deadlineAt - performance.now()),
  );
  try {
    return await readUpstreamText(forwarded.response, services.options.upstreamMaxBodyBytes);
  } catch (error) {
    if (clientSignal?.aborted) throw error;
    forwarded.abort();
    const channel = forwarded.channel.id;
    services.health.recordFailure(channel);
    const reason = error instanceof UpstreamResponseTooLargeError ? "too_large" : timedOut ? "timeout" : "body";
    services.metrics?.upstreamError(channel, reason);
    services.log("warn", "upstream answer could not be read", { requestId, channel, reason });
    if (error instanceof UpstreamResponseTooLargeError) throw errors.upstreamResponseTooLarge(error.limitBytes);
    throw timedOut ? errors.upstreamTimeout() : errors.upstreamUnreachable();
  } finally {
    clearTimeout(timer);
  }
}
