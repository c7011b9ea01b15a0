import { isRecord } from "@tollgate/shared";
import { ChannelCredentialError } from "../provider-adapter";

/** A Bedrock channel's key: an IAM access key (signed with SigV4) or a Bedrock API key (sent as a bearer token). */
export type BedrockCredential =
  | { kind: "sigv4"; accessKeyId: string; secretAccessKey: string; sessionToken?: string }
  | { kind: "bearer"; token: string };

const ACCESS_KEY_FIELDS = new Set(["accessKeyId", "secretAccessKey", "sessionToken"]);
const ACCESS_KEY_ID = /^[A-Z0-9]{16,128}$/;

/**
 * What is wrong with a key as a Bedrock credential, in words that never quote it; null when it is usable.
 * A key that starts with `{` is read as `{"accessKeyId","secretAccessKey","sessionToken"?}`; any other is a
 * Bedrock API key.
 */
export function bedrockCredentialProblem(key: string): string | null {
  const text = key.trim();
  if (text === "") return "Must be an AWS access key as JSON or a Bedrock API key";
  if (!text.startsWith("{")) return /\s/.test(text) ? "A Bedrock API key has no spaces" : null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'Must be JSON like {"accessKeyId":"AKIA...","secretAccessKey":"...","sessionToken":"..."} (sessionToken optional), or a Bedrock API key';
  }
  if (!isRecord(parsed)) return "Must be a JSON object with accessKeyId and secretAccessKey";
  const unknown = Object.keys(parsed).filter((field) => !ACCESS_KEY_FIELDS.has(field));
  if (unknown.length > 0) return `Has fields a Bedrock credential does not take (${unknown.map((field) => JSON.stringify(field.slice(0, 40))).join(", ")}); only accessKeyId, secretAccessKey and sessionToken`;
  if (typeof parsed.accessKeyId !== "string" || !ACCESS_KEY_ID.test(parsed.accessKeyId)) return "accessKeyId must be an AWS access key id (like AKIA... or ASIA...)";
  if (typeof parsed.secretAccessKey !== "string" || parsed.secretAccessKey === "" || /\s/.test(parsed.secretAccessKey)) return "secretAccessKey must be a non-empty string without spaces";
  if (parsed.sessionToken !== undefined && (typeof parsed.sessionToken !== "string" || parsed.sessionToken === "")) return "sessionToken, when given, must be a non-empty string";
  return null;
}

/** The channel key as a credential; ChannelCredentialError (never quoting it) when it is not one. */
export function parseBedrockCredential(key: string): BedrockCredential {
  const problem = bedrockCredentialProblem(key);
  if (problem) throw new ChannelCredentialError(`the Bedrock key: ${problem}.`);
  const text = key.trim();
  if (!text.startsWith("{")) return { kind: "bearer", token: text };
  const { accessKeyId, secretAccessKey, sessionToken } = JSON.parse(text) as { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  return { kind: "sigv4", accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}
