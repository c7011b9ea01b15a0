import type { AdapterChannel } from "../provider-adapter";
import { scrubSecret } from "../shared/scrub-secret";
import { errorTypeForStatus, type MappedUpstreamError, relayedStatus, relayedUpstreamError, upstreamAuthFailure } from "../shared/upstream-error";

/**
 * An OpenAI-compatible upstream's error answer: `{"error":{message,type,param,code}}`, or the looser shapes
 * vendors send (`{"error":"..."}`, `{"message"}`, `{"detail"}`), relayed with its status; a refused key
 * (401/403) is the channel's fault. The channel key is scrubbed from any message an upstream echoes.
 */
export function mapError(status: number, bodyText: string, channel: AdapterChannel): MappedUpstreamError {
  if (status === 401 || status === 403) return upstreamAuthFailure(status);
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
  return relayedUpstreamError(status, {
    message: scrubSecret(message, channel.apiKey),
    type: type ?? errorTypeForStatus(relayedStatus(status)),
    code,
    param,
  });
}
