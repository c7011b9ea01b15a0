import { type AuthorizeContext, ChannelCredentialError } from "../provider-adapter";
import { parseServiceAccountKey, ServiceAccountKeyError, type ServiceAccountKey } from "./service-account";

/** The scope Vertex AI's data plane takes. */
export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/** An assertion's lifetime: Google accepts at most an hour. */
const ASSERTION_LIFETIME_S = 3600;
/** A token is replaced this long before it expires (as google-auth-library's eager refresh), so none is sent stale. */
const DEFAULT_REFRESH_MARGIN_MS = 5 * 60_000;
/** Time allowed for one exchange, whoever waits on it (it is shared, so no one client's abort cancels it). */
const EXCHANGE_TIMEOUT_MS = 20_000;
/** Distinct credentials whose tokens are kept (a channel each; keys replaced leave theirs behind). */
const MAX_CREDENTIALS = 256;

interface AccessToken {
  value: string;
  /** Epoch ms, by the cache's clock. */
  expiresAt: number;
}

interface Entry {
  token: AccessToken | null;
  /** The exchange in flight, shared by every request that needs a token meanwhile. */
  pending: Promise<string> | null;
}

export interface AccessTokenCacheOptions {
  /** The clock (epoch ms): tests move it instead of waiting. */
  now?: () => number;
  refreshMarginMs?: number;
}

export interface AccessTokenCache {
  /** An access token for the service-account key: the cached one while fresh, else one exchange (shared). */
  tokenFor(keyText: string, context: AuthorizeContext): Promise<string>;
  /** Forgets every token (a test's reset). */
  clear(): void;
}

/** A readable reason from Google's `{"error","error_description"}` (OAuth) or `{"error":{"message"}}` answer, nothing else of it. */
function refusalOf(bodyText: string): string {
  try {
    const body = JSON.parse(bodyText) as { error?: unknown; error_description?: unknown };
    if (typeof body.error === "string") return typeof body.error_description === "string" ? `${body.error}: ${body.error_description}` : body.error;
    const message = (body.error as { message?: unknown } | undefined)?.message;
    if (typeof message === "string") return message;
  } catch {
    // Not JSON: said by the status alone.
  }
  return "no reason given";
}

/** The signed assertion (RFC 7523): RS256 over iss = the service account, scope, aud = the token URI, iat, exp. */
async function signAssertion(key: ServiceAccountKey, nowMs: number): Promise<string> {
  // jose is loaded by the first Vertex AI exchange: a gateway with no such channel never holds it.
  const { importPKCS8, SignJWT } = await import("jose");
  let privateKey: CryptoKey;
  try {
    privateKey = await importPKCS8(key.privateKey, "RS256");
  } catch {
    throw new ChannelCredentialError(`The Vertex AI channel's service-account key has a "private_key" that is not an RSA private key.`);
  }
  const issuedAt = Math.floor(nowMs / 1000);
  return new SignJWT({ scope: CLOUD_PLATFORM_SCOPE })
    .setProtectedHeader({ alg: "RS256", typ: "JWT", ...(key.privateKeyId ? { kid: key.privateKeyId } : {}) })
    .setIssuer(key.clientEmail)
    .setAudience(key.tokenUri)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ASSERTION_LIFETIME_S)
    .sign(privateKey);
}

/**
 * Exchanges a service account's key for a Vertex AI access token (Google's OAuth 2.0 for server-to-server
 * applications), kept per credential until shortly before it expires. A refusal (4xx: a revoked key, a
 * signature Google cannot verify) throws ChannelCredentialError, the channel's fault, quoting Google's
 * reason and never the key; a failure of the endpoint itself (5xx, 429, the network) is thrown as such, so
 * the request fails over without blaming the channel. Nothing is cached from a failed exchange.
 */
export function createAccessTokenCache(options: AccessTokenCacheOptions = {}): AccessTokenCache {
  const now = options.now ?? Date.now;
  const refreshMarginMs = options.refreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS;
  const entries = new Map<string, Entry>();

  async function exchange(keyText: string, context: AuthorizeContext): Promise<AccessToken> {
    let key: ServiceAccountKey;
    try {
      key = parseServiceAccountKey(keyText);
    } catch (error) {
      if (error instanceof ServiceAccountKeyError) throw new ChannelCredentialError(error.message);
      throw error;
    }
    const startedAt = now();
    const assertion = await signAssertion(key, startedAt);
    const response = await context.fetch(key.tokenUri, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString(),
      signal: AbortSignal.timeout(EXCHANGE_TIMEOUT_MS),
    });
    const bodyText = await response.text();
    if (response.status === 429 || response.status >= 500) {
      throw new Error(`Google's token endpoint failed (HTTP ${response.status}).`);
    }
    if (!response.ok) {
      throw new ChannelCredentialError(`Google's token endpoint refused the Vertex AI channel's service account (HTTP ${response.status}, ${refusalOf(bodyText)}).`);
    }
    let answer: { access_token?: unknown; expires_in?: unknown };
    try {
      answer = JSON.parse(bodyText) as typeof answer;
    } catch {
      answer = {};
    }
    if (typeof answer.access_token !== "string" || answer.access_token === "" || typeof answer.expires_in !== "number" || !(answer.expires_in > 0)) {
      throw new Error("Google's token endpoint answered without an access token and its lifetime.");
    }
    // The lifetime counts from when the exchange began: the token is never thought younger than it is.
    return { value: answer.access_token, expiresAt: startedAt + answer.expires_in * 1000 };
  }

  function remember(keyText: string, entry: Entry): void {
    entries.delete(keyText);
    entries.set(keyText, entry);
    if (entries.size > MAX_CREDENTIALS) entries.delete(entries.keys().next().value!);
  }

  /** One exchange, its outcome stored; a refresh that failed while the old token still lives gives the old one. */
  async function refresh(keyText: string, context: AuthorizeContext, previous: AccessToken | null): Promise<string> {
    try {
      const token = await exchange(keyText, context);
      remember(keyText, { token, pending: null });
      return token.value;
    } catch (error) {
      remember(keyText, { token: previous, pending: null });
      if (previous && now() < previous.expiresAt && !(error instanceof ChannelCredentialError)) return previous.value;
      throw error;
    }
  }

  return {
    tokenFor(keyText, context) {
      const entry = entries.get(keyText);
      if (entry?.token && now() < entry.token.expiresAt - refreshMarginMs) return Promise.resolve(entry.token.value);
      if (entry?.pending) return entry.pending;
      const previous = entry?.token ?? null;
      // Stored before the exchange's first await ends, so that every request meanwhile shares it.
      const pending = refresh(keyText, context, previous);
      remember(keyText, { token: previous, pending });
      return pending;
    },
    clear() {
      entries.clear();
    },
  };
}
