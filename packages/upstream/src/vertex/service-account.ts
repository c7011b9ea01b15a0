import { upstreamAddressRefusal } from "@tollgate/shared";

/** Google's OAuth 2.0 token endpoint, where a service account's signed assertion is exchanged for an access token. */
export const GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token";

/** The fields of a service-account JSON key (IAM > Service accounts > Keys > Add key > JSON) that the exchange uses. */
export interface ServiceAccountKey {
  clientEmail: string;
  /** PKCS#8 PEM. Never put it in a message. */
  privateKey: string;
  privateKeyId: string | null;
  projectId: string | null;
  /** Where the assertion is sent, and its audience. */
  tokenUri: string;
}

/** A key that is not a usable service-account JSON key: the message says which field, never a value. */
export class ServiceAccountKeyError extends Error {
  constructor(problem: string) {
    super(`The Vertex AI channel's key must be a Google service-account JSON key: ${problem}`);
    this.name = "ServiceAccountKeyError";
  }
}

function text(record: Record<string, unknown>, field: string): string | null {
  const value = record[field];
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

/**
 * Reads a service-account JSON key, refusing one the exchange cannot use with a message that names the
 * field (the admin schemas show it as the key's error; the gateway as the channel's). The token URI must be
 * https (http only for a loopback host: a test's fake), and not a metadata address, because the signed
 * assertion goes there.
 */
export function parseServiceAccountKey(keyText: string): ServiceAccountKey {
  let parsed: unknown;
  try {
    parsed = JSON.parse(keyText);
  } catch {
    throw new ServiceAccountKeyError("it is not JSON (paste the whole key file).");
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new ServiceAccountKeyError("it is not a JSON object.");
  const record = parsed as Record<string, unknown>;
  if (record.type !== undefined && record.type !== "service_account") {
    throw new ServiceAccountKeyError(`its "type" must be "service_account" (an API key or user credentials cannot be exchanged here).`);
  }
  const clientEmail = text(record, "client_email");
  if (!clientEmail) throw new ServiceAccountKeyError(`"client_email" is missing.`);
  const privateKey = text(record, "private_key");
  if (!privateKey || !privateKey.includes("-----BEGIN PRIVATE KEY-----")) {
    throw new ServiceAccountKeyError(`"private_key" is missing or is not a PEM private key.`);
  }
  const tokenUri = text(record, "token_uri") ?? GOOGLE_TOKEN_URI;
  let url: URL;
  try {
    url = new URL(tokenUri);
  } catch {
    throw new ServiceAccountKeyError(`"token_uri" is not a URL.`);
  }
  const loopback = url.hostname === "127.0.0.1" || url.hostname === "localhost" || url.hostname === "[::1]";
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) throw new ServiceAccountKeyError(`"token_uri" must be an https URL.`);
  // The signed assertion is a credential too: never sent to a metadata service, whatever the key says.
  const addressRefusal = upstreamAddressRefusal(url);
  if (addressRefusal !== null) throw new ServiceAccountKeyError(`"token_uri": ${addressRefusal}.`);
  return { clientEmail, privateKey, privateKeyId: text(record, "private_key_id"), projectId: text(record, "project_id"), tokenUri };
}

/** The admin schemas' check of a Vertex channel's key: what is wrong with it, or null. */
export function serviceAccountKeyProblem(keyText: string): string | null {
  try {
    parseServiceAccountKey(keyText);
    return null;
  } catch (error) {
    if (error instanceof ServiceAccountKeyError) return error.message;
    throw error;
  }
}
