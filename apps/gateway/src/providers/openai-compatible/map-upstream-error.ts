import { GatewayError } from "../../errors";
import type { RoutableChannel } from "../../routing/channel-catalog";

/**
 * An upstream's error answer, in our envelope. The status is relayed, except an upstream 401/403, which
 * means the channel's key is bad: that is the operator's problem, not the caller's key, so it becomes 502
 * (an openai client would otherwise tell its user their own key is wrong). The channel key is scrubbed
 * from any message an upstream echoes.
 */
export function mapUpstreamError(status: number, bodyText: string, channel: RoutableChannel): GatewayError {
  let message = `The upstream provider answered with status ${status}.`;
  let type: string | undefined;
  let code: string | null = null;
  let param: string | null = null;
  try {
    const parsed = JSON.parse(bodyText) as { error?: unknown; message?: unknown; detail?: unknown };
    const error = parsed.error;
    if (error && typeof error === "object") {
      const record = error as Record<string, unknown>;
      if (typeof record.message === "string") message = record.message;
      if (typeof record.type === "string") type = record.type;
      if (typeof record.code === "string" || typeof record.code === "number") code = String(record.code);
      if (typeof record.param === "string") param = record.param;
    } else if (typeof error === "string") {
      message = error;
    } else if (typeof parsed.message === "string") {
      message = parsed.message;
    } else if (typeof parsed.detail === "string") {
      message = parsed.detail;
    }
  } catch {
    if (bodyText.trim()) message = `${message} ${bodyText.trim().slice(0, 200)}`;
  }
  if (channel.apiKey) message = message.split(channel.apiKey).join("***");
  if (status === 401 || status === 403) {
    return new GatewayError(`The upstream provider rejected the gateway's credentials (status ${status}).`, {
      status: 502,
      code: "upstream_auth_failed",
      type: "server_error",
    });
  }
  const relayedStatus = status >= 400 && status <= 599 ? status : 502;
  return new GatewayError(message, { status: relayedStatus, code, type, param });
}
