/**
 * AWS Signature Version 4 checked the way AWS checks it, written here from AWS's documentation
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html) with node:crypto rather
 * than the signer the gateway uses, so that a misuse of that library (wrong service, region, path encoding,
 * a header left unsigned) fails the fake's check as it would fail Bedrock's.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

export interface SigV4Secret {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export type SigV4Verdict = { ok: true } | { ok: false; errorType: "UnrecognizedClientException" | "InvalidSignatureException" | "IncompleteSignatureException"; message: string };

const sha256Hex = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();

/** RFC 3986 encoding of one path segment or query part, as SigV4 wants it (every byte but A-Z a-z 0-9 - _ . ~). */
function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Checks `request` (its raw path and body as received) against `secret` for `service` in `region`: the
 * Authorization header's credential scope, the signed headers' presence (host and x-amz-date among them),
 * the session token, and the signature over the canonical request (each path segment encoded once more, as
 * for every AWS service but S3).
 */
export function verifySigV4(request: Request, body: string, secret: SigV4Secret, service: string, region: string): SigV4Verdict {
  const authorization = request.headers.get("authorization") ?? "";
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!match) return { ok: false, errorType: "IncompleteSignatureException", message: "Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters." };
  const [, accessKeyId, day, scopeRegion, scopeService, signedHeaderList, signature] = match as unknown as string[];
  if (accessKeyId !== secret.accessKeyId) return { ok: false, errorType: "UnrecognizedClientException", message: "The security token included in the request is invalid." };
  const amzDate = request.headers.get("x-amz-date") ?? "";
  const signedHeaders = signedHeaderList!.split(";");
  if (!signedHeaders.includes("host") || !signedHeaders.includes("x-amz-date") || !amzDate.startsWith(day!)) {
    return { ok: false, errorType: "IncompleteSignatureException", message: "The request must sign host and x-amz-date." };
  }
  if (scopeRegion !== region || scopeService !== service) {
    return { ok: false, errorType: "InvalidSignatureException", message: `Credential should be scoped to a valid region and service '${service}'.` };
  }
  if (secret.sessionToken !== undefined && (request.headers.get("x-amz-security-token") !== secret.sessionToken || !signedHeaders.includes("x-amz-security-token"))) {
    return { ok: false, errorType: "UnrecognizedClientException", message: "The security token included in the request is invalid." };
  }
  const url = new URL(request.url);
  const canonicalPath = url.pathname.split("/").map(uriEncode).join("/");
  const canonicalQuery = [...url.searchParams].map(([name, value]) => `${uriEncode(name)}=${uriEncode(value)}`).sort().join("&");
  const canonicalHeaders = signedHeaders.map((name) => `${name}:${(request.headers.get(name) ?? "").trim().replace(/\s+/g, " ")}\n`).join("");
  const canonicalRequest = [request.method, canonicalPath, canonicalQuery, canonicalHeaders, signedHeaderList, sha256Hex(body)].join("\n");
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonicalRequest)].join("\n");
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secret.secretAccessKey}`, day!), region), service), "aws4_request");
  const expected = createHmac("sha256", signingKey).update(stringToSign).digest();
  if (!timingSafeEqual(expected, Buffer.from(signature!, "hex"))) {
    return {
      ok: false,
      errorType: "InvalidSignatureException",
      message: "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.",
    };
  }
  return { ok: true };
}
