import { type AdapterChannel, ChannelCredentialError, type OutgoingRequest } from "../provider-adapter";
import { parseBedrockCredential } from "./credentials";
import { REGION_PATTERN } from "./upstream-endpoint";

/** The channel's region (config.region), which the signature names; ChannelCredentialError without one. */
export function channelRegion(channel: AdapterChannel): string {
  const region = channel.config.region;
  if (typeof region !== "string" || !REGION_PATTERN.test(region)) throw new ChannelCredentialError("the channel has no valid AWS region (config.region).");
  return region;
}

/**
 * Authorizes a Bedrock request: a Bedrock API key as `Authorization: Bearer`, an IAM access key by AWS
 * Signature Version 4 (service "bedrock", the channel's region) over the method, path, query, the headers
 * sent and the body's SHA-256, by AWS's own signer. `host` is signed as the URL names it, and not sent as
 * a header: fetch writes the same value itself.
 */
export async function authorizeBedrock(request: OutgoingRequest, channel: AdapterChannel): Promise<OutgoingRequest> {
  const credential = parseBedrockCredential(channel.apiKey);
  if (credential.kind === "bearer") return { ...request, headers: { ...request.headers, authorization: `Bearer ${credential.token}` } };
  // AWS's signer is loaded by the first request signed with an IAM key: a gateway with no such channel never holds it.
  const [{ SignatureV4 }, { Sha256 }] = await Promise.all([import("@smithy/signature-v4"), import("@aws-crypto/sha256-js")]);
  const signer = new SignatureV4({
    service: "bedrock",
    region: channelRegion(channel),
    credentials: { accessKeyId: credential.accessKeyId, secretAccessKey: credential.secretAccessKey, sessionToken: credential.sessionToken },
    sha256: Sha256,
  });
  const url = new URL(request.url);
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = value;
  const signed = await signer.sign({
    method: request.method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query,
    headers: { ...request.headers, host: url.host },
    body: request.body,
  });
  const { host: _host, ...headers } = signed.headers;
  return { ...request, headers };
}
