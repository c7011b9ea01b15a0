import type { AdapterChannel, TranslatedError } from "../provider-adapter";

/** Replaces every occurrence of the secret; for anything an upstream may echo back. */
export function scrubSecret(text: string, secret: string): string {
  return secret ? text.split(secret).join("***") : text;
}

function typeForStatus(status: number): string {
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

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
export function mapError(status: number, bodyText: string, channel: AdapterChannel): TranslatedError {
  if (status === 401 || status === 403) {
    return {
      status: 502,
      message: `The upstream provider rejected the gateway's credentials (status ${status}).`,
      type: "server_error",
      code: "upstream_auth_failed",
      param: null,
    };
  }
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
  const relayedStatus = status >= 400 && status <= 599 ? status : 502;
  const param = typeof fields.param === "string" ? fields.param : null;

  if (fields.code === "content_filter" || fields.innererror?.code === "ResponsibleAIPolicyViolation") {
    return {
      status: 400,
      message: scrubSecret(message, channel.apiKey),
      type: "invalid_request_error",
      code: "content_filter",
      param: param ?? "prompt",
    };
  }
  let code = typeof fields.code === "string" || typeof fields.code === "number" ? String(fields.code) : null;
  if (code !== null && /^\d+$/.test(code)) code = code === "429" ? "rate_limit_exceeded" : null;
  return {
    status: relayedStatus,
    message: scrubSecret(message, channel.apiKey),
    type: typeof fields.type === "string" && fields.type !== "" ? fields.type : typeForStatus(relayedStatus),
    code,
    param,
  };
}
