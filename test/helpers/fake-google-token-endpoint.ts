import { decodeJwt, decodeProtectedHeader, exportPKCS8, generateKeyPair, jwtVerify } from "jose";
import { RequestLog, startFakeServer } from "./fake-upstream-kit";

/**
 * A fake Google OAuth 2.0 token endpoint (https://developers.google.com/identity/protocols/oauth2/service-account#httprest)
 * on 127.0.0.1:0: POST /token with `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=JWT`.
 * It verifies the assertion as Google does: RS256, signed by the key of the service account it names (the
 * public half of a key pair made here), `kid` that key's id, aud this endpoint, scope cloud-platform, and
 * an exp at most an hour after iat, not past. It answers `{access_token, expires_in, token_type}` and
 * refuses with Google's `{"error","error_description"}` body (400 invalid_grant). The access tokens it
 * issued are what the fake Vertex accepts.
 */
export interface FakeGoogleTokenEndpoint {
  /** The token URI a key names (http://127.0.0.1:PORT/token). */
  tokenUri: string;
  /** Each exchange's verified claims, in order (refused ones included, with `refused`). */
  exchanges: RequestLog<{ claims: Record<string, unknown>; refused: string | null }>;
  /** A new service account of `project`: its JSON key text, as the IAM console downloads it. */
  serviceAccount(project?: string): Promise<{ keyText: string; clientEmail: string }>;
  /** A key naming `clientEmail` but signing with another private key (a forged or rotated-out key). */
  forgedKey(clientEmail: string): Promise<string>;
  /** Deletes the account's key: its assertions are refused from now on. */
  revoke(clientEmail: string): void;
  /** Lifetime of the tokens issued from now on (seconds; 3599 by default, as Google). */
  setExpiresIn(seconds: number): void;
  /** Answers the next exchange with this status (Google's 503), without reading it. */
  failNext(status: number): void;
  /** Whether `accessToken` was issued here and has not expired (by the endpoint's clock). */
  accepts(accessToken: string): boolean;
  close(): Promise<void>;
}

const SCOPE = "https://www.googleapis.com/auth/cloud-platform";

function refusal(error: string, description: string, status = 400): Response {
  return Response.json({ error, error_description: description }, { status });
}

export async function startFakeGoogleTokenEndpoint(options: { now?: () => number } = {}): Promise<FakeGoogleTokenEndpoint> {
  const now = options.now ?? Date.now;
  const accounts = new Map<string, { publicKey: CryptoKey; keyId: string; revoked: boolean }>();
  const issued = new Map<string, number>();
  const exchanges = new RequestLog<{ claims: Record<string, unknown>; refused: string | null }>();
  let expiresIn = 3599;
  let failures: number[] = [];
  let tokenUri = "";

  async function verify(form: URLSearchParams): Promise<{ claims: Record<string, unknown>; refused: string | null }> {
    if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") return { claims: {}, refused: "unsupported_grant_type" };
    const assertion = form.get("assertion") ?? "";
    let claims: Record<string, unknown>;
    let keyId: unknown;
    try {
      claims = decodeJwt(assertion);
      keyId = decodeProtectedHeader(assertion).kid;
    } catch {
      return { claims: {}, refused: "Invalid JWT: malformed" };
    }
    const account = accounts.get(String(claims.iss));
    if (!account || account.revoked) return { claims, refused: "Invalid JWT Signature." };
    if (keyId !== account.keyId) return { claims, refused: "Invalid JWT Signature." };
    try {
      await jwtVerify(assertion, account.publicKey, { algorithms: ["RS256"], audience: tokenUri, issuer: String(claims.iss), currentDate: new Date(now()) });
    } catch {
      return { claims, refused: "Invalid JWT Signature." };
    }
    if (claims.scope !== SCOPE) return { claims, refused: "Invalid JWT: scope" };
    const { iat, exp } = claims as { iat?: number; exp?: number };
    if (typeof iat !== "number" || typeof exp !== "number" || exp - iat > 3600 || exp * 1000 <= now()) {
      return { claims, refused: "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe." };
    }
    return { claims, refused: null };
  }

  const server = startFakeServer({
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname !== "/token" || request.method !== "POST") return new Response("Not Found", { status: 404 });
      const failure = failures.shift();
      if (failure !== undefined) return refusal("internal_failure", "Backend Error", failure);
      if (!(request.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded")) return refusal("invalid_request", "Bad Request");
      const outcome = await verify(new URLSearchParams(await request.text()));
      exchanges.record(outcome);
      if (outcome.refused === "unsupported_grant_type") return refusal("unsupported_grant_type", "Invalid grant_type");
      if (outcome.refused) return refusal("invalid_grant", outcome.refused);
      const accessToken = `ya29.fake-${crypto.randomUUID()}`;
      issued.set(accessToken, now() + expiresIn * 1000);
      return Response.json({ access_token: accessToken, expires_in: expiresIn, token_type: "Bearer" });
    },
  });
  tokenUri = `${server.origin}/token`;

  async function keyText(clientEmail: string, project: string, privateKey: CryptoKey, keyId: string): Promise<string> {
    return JSON.stringify({
      type: "service_account",
      project_id: project,
      private_key_id: keyId,
      private_key: await exportPKCS8(privateKey),
      client_email: clientEmail,
      client_id: "100000000000000000000",
      auth_uri: "https://accounts.google.com/o/oauth2/auth",
      token_uri: tokenUri,
      auth_provider_x509_cert_url: "https://www.googleapis.com/oauth2/v1/certs",
      universe_domain: "googleapis.com",
    });
  }

  return {
    tokenUri,
    exchanges,
    async serviceAccount(project = "tollgate-test") {
      const { publicKey, privateKey } = await generateKeyPair("RS256", { extractable: true });
      const clientEmail = `gateway-${crypto.randomUUID().slice(0, 8)}@${project}.iam.gserviceaccount.com`;
      const keyId = crypto.randomUUID().replaceAll("-", "");
      accounts.set(clientEmail, { publicKey, keyId, revoked: false });
      return { keyText: await keyText(clientEmail, project, privateKey, keyId), clientEmail };
    },
    async forgedKey(clientEmail) {
      const { privateKey } = await generateKeyPair("RS256", { extractable: true });
      return keyText(clientEmail, "tollgate-test", privateKey, accounts.get(clientEmail)?.keyId ?? "unknown");
    },
    revoke(clientEmail) {
      const account = accounts.get(clientEmail);
      if (account) account.revoked = true;
    },
    setExpiresIn(seconds) {
      expiresIn = seconds;
    },
    failNext(status) {
      failures = [...failures, status];
    },
    accepts(accessToken) {
      const expiresAt = issued.get(accessToken);
      return expiresAt !== undefined && now() < expiresAt;
    },
    close: () => server.close(),
  };
}
