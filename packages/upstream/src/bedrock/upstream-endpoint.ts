import type { AdapterChannel } from "../provider-adapter";

/** The Bedrock Runtime endpoint of a region, as the console offers it ({region} filled from the channel's region). */
export const BEDROCK_DEFAULT_BASE_URL = "https://bedrock-runtime.{region}.amazonaws.com";

/** The Bedrock Runtime endpoint of `region`. */
export function bedrockRuntimeUrl(region: string): string {
  return BEDROCK_DEFAULT_BASE_URL.replace("{region}", region);
}

/** AWS region names: us-east-1, eu-central-2, us-gov-west-1, ap-southeast-5. */
export const REGION_PATTERN = /^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/;

/**
 * POST {base}/model/{modelId}/{action}: the model id (or inference profile id or ARN) as one path segment,
 * percent-encoded as AWS's SDKs send it (`anthropic.claude-sonnet-4-5-20250929-v1%3A0`), so the signature
 * covers the path the server sees.
 */
export function modelUrl(channel: AdapterChannel, modelId: string, action: "converse" | "converse-stream" | "invoke" | "invoke-with-response-stream"): string {
  return `${channel.baseUrl}/model/${encodeURIComponent(modelId)}/${action}`;
}

/**
 * Whether a Bedrock model id is one of Anthropic's (`anthropic.claude-...`, a cross-region inference profile
 * `us.anthropic.claude-...`, or an ARN ending in one): those take Anthropic's own Messages body through InvokeModel.
 */
export function isAnthropicModel(modelId: string): boolean {
  const lastSegment = modelId.slice(modelId.lastIndexOf("/") + 1);
  return /^(?:[a-z-]+\.)?anthropic\./.test(lastSegment);
}

/** The channel's extra headers (config.headers), added after the adapter's own. */
export function extraHeaders(channel: AdapterChannel): Record<string, string> {
  return { ...(channel.config.headers as Record<string, string> | undefined) };
}
