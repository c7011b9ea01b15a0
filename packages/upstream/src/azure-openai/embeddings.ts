import type { TokenUsage } from "@tollgate/shared";
import type { AdapterChannel, UpstreamHttpRequest } from "../provider-adapter";
import { extractUsage } from "./extract-usage";
import { azureHeaders, azureUrl } from "./upstream-endpoint";

/** OpenAI embeddings request -> the deployment's `/embeddings`; `encoding_format` and `dimensions` pass through. */
export function buildEmbeddingsRequest(input: {
  channel: AdapterChannel;
  upstreamModel: string;
  body: Record<string, unknown>;
}): UpstreamHttpRequest {
  return {
    url: azureUrl(input.channel, input.upstreamModel, "embeddings"),
    headers: azureHeaders(input.channel, false),
    body: JSON.stringify({ ...input.body, model: input.upstreamModel }),
  };
}

/** Azure answers in OpenAI's list shape: passed through, named after the public model. */
export function translateEmbeddingsResponse(
  upstreamBody: unknown,
  input: { upstreamModel: string; body: Record<string, unknown> },
): { response: Record<string, unknown>; usage: TokenUsage | null } {
  const response: Record<string, unknown> = { ...(upstreamBody as Record<string, unknown>), model: input.body.model };
  return { response, usage: extractUsage(response.usage) };
}
