import type { NativeMessagesInput, UpstreamHttpRequest } from "../provider-adapter";
import { extraHeaders, isAnthropicModel, modelUrl } from "./upstream-endpoint";

/** The Messages API version Bedrock's Claude models take in the body (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html). */
export const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";

/**
 * A client's own Anthropic Messages request for a Claude model on Bedrock: InvokeModel
 * (`POST {base}/model/{modelId}/invoke`, or `/invoke-with-response-stream`) with the Anthropic body, less
 * `model` (the path names it) and `stream` (the path says it), plus `anthropic_version`; the client's
 * anthropic-beta header becomes the body's `anthropic_beta` list, where Bedrock reads it. Any other model
 * family on Bedrock does not speak Messages: null, and the gateway translates through Converse.
 */
export function buildBedrockMessagesRequest(input: NativeMessagesInput): UpstreamHttpRequest | null {
  if (!isAnthropicModel(input.upstreamModel)) return null;
  const { model: _model, stream, ...rest } = input.body;
  const betas = (input.beta ?? "")
    .split(",")
    .map((beta) => beta.trim())
    .filter((beta) => beta !== "");
  const body = { ...rest, anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...(betas.length > 0 ? { anthropic_beta: betas } : {}) };
  const streamed = stream === true;
  return {
    url: modelUrl(input.channel, input.upstreamModel, streamed ? "invoke-with-response-stream" : "invoke"),
    headers: { "content-type": "application/json", accept: streamed ? "application/vnd.amazon.eventstream" : "application/json", ...extraHeaders(input.channel) },
    body: JSON.stringify(body),
  };
}
