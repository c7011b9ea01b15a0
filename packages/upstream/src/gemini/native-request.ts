import type { GeminiNativeInput, UpstreamHttpRequest } from "../provider-adapter";
import { bareModelName, geminiHeaders, geminiUrl } from "./upstream-endpoint";

/**
 * A Gemini-API client's request relayed to Google as it came: the model is the path's (the channel's
 * upstream model), and a body that names a model itself (embedContent's `model`, each of
 * batchEmbedContents' `requests[].model`) names the upstream one too, since Google refuses a batch whose
 * requests name another model than the path. Anything else in the body is the client's, untouched.
 */
export function buildGeminiNativeRequest(input: GeminiNativeInput): UpstreamHttpRequest {
  const { channel, upstreamModel, method, body, text } = input;
  const qualified = `models/${bareModelName(upstreamModel)}`;
  let relayed = text;
  if (method === "batchEmbedContents" && Array.isArray(body.requests)) {
    const requests = body.requests.map((entry: unknown) =>
      entry !== null && typeof entry === "object" && !Array.isArray(entry) ? { ...entry, model: qualified } : entry,
    );
    relayed = JSON.stringify({ ...body, requests });
  } else if (typeof body.model === "string" && body.model !== qualified) {
    relayed = JSON.stringify({ ...body, model: qualified });
  }
  return { url: geminiUrl(channel, upstreamModel, method), headers: geminiHeaders(channel), body: relayed };
}
