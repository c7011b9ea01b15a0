import type { AdapterChannel } from "../provider-adapter";
import { scrubSecret } from "../shared/scrub-secret";
import { errorTypeForStatus, type MappedUpstreamError, relayedStatus, relayedUpstreamError, upstreamAuthFailure } from "../shared/upstream-error";

interface AzureErrorFields {
  message?: unknown;
  type?: unknown;
  code?: unknown;
  param?: unknown;
  innererror?: { code?: unknown };
}

/**
 * Azure's error body -> our error, status relayed. Azure speaks OpenAI's `{"error":{message,type,param,code}}`
 * but fills it its own way: `code` is a number as a string for gateway errors ("401", "429") or a name
 * ("DeploymentNotFound", "content_filter"), and a prompt its content filter refused is a 400 with code
 * content_filter and an `innererror` (ResponsibleAIPolicyViolation), which keeps that code so clients can
 * tell it from other 400s. A refused key (401/403) becomes 502 upstream_auth_failed, as in the
 * openai-compatible adapter: it is the operator's key, not the caller's.
 */
export function mapError(status: number, bodyText: string, channel: AdapterChannel): MappedUpstreamError {
  if (status === 401 || status === 403) return upstreamAuthFailure(status);
  let message = `The upstream provider answered with status ${status}.`;
  let fields: AzureErrorFields = {};
  try {
    const parsed = JSON.parse(bodyText) as { error?: AzureErrorFields; message?: unknown };
    if (parsed.error && typeof parsed.error === "object") fields = parsed.error;
    else if (typeof parsed.message === "string") fields = { message: parsed.message };
  } catch {
    if (bodyText.trim()) message = `${message} ${bodyText.trim().slice(0, 200)}`;
  }
  if (typeof fields.message === "string" && fields.message.trim() !== "") message = fields.message.trim();
  const param = typeof fields.param === "string" ? fields.param : null;

  if (fields.code === "content_filter" || fields.innererror?.code === "ResponsibleAIPolicyViolation") {
    return relayedUpstreamError(status, {
      status: 400,
      message: scrubSecret(message, channel.apiKey),
      type: "invalid_request_error",
      code: "content_filter",
      param: param ?? "prompt",
    });
  }
  let code = typeof fields.code === "string" || typeof fields.code === "number" ? String(fields.code) : null;
  if (code !== null && /^\d+$/.test(code)) code = code === "429" ? "rate_limit_exceeded" : null;
  return relayedUpstreamError(status, {
    message: scrubSecret(message, channel.apiKey),
    type: typeof fields.type === "string" && fields.type !== "" ? fields.type : errorTypeForStatus(relayedStatus(status)),
    code,
    param,
  });
}
