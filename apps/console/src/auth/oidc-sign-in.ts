import { type OidcIdentity, signInOidcUser } from "@tollgate/admin";
import type { Database } from "@tollgate/db";
import { readUpTo, type SecretBox } from "@tollgate/shared";
import type * as OpenIdClient from "openid-client";
import type { ConsoleLog } from "../trpc";
import { clearedSessionCookie, createSession, deleteSession, readCookie, SESSION_COOKIE, SESSION_MAX_LIFETIME_MS, sessionCookie } from "./sessions";

/** Single sign-on settings, from the server's env.ts (OIDC_*); absent: password sign-in only. */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The ID token claim that lists the user's groups (OIDC_GROUPS_CLAIM, default `groups`). */
  groupsClaim: string;
  /** Groups whose members are administrators (OIDC_ADMIN_GROUPS); everyone else signs in as a user. */
  adminGroups: string[];
  /** What the sign-in button says: "Sign in with <displayName>" (OIDC_NAME, default the issuer's host). */
  displayName: string;
  /** OIDC_ONLY: password sign-in is turned off in the console (the CLI still works). */
  only: boolean;
  /**
   * Plain-http issuer allowed (only for an issuer on a loopback address, for development and tests):
   * openid-client otherwise refuses anything but https.
   */
  allowHttpIssuer: boolean;
  /**
   * OIDC_PROVIDER_LOGOUT: signing out of the console also ends the session at the identity provider
   * (OpenID Connect RP-Initiated Logout: the browser is sent to its end_session_endpoint with the ID token as
   * a hint, and back to the console's sign-in page, which must be registered there as a post-logout redirect
   * URI). Off: signing out ends the console's session only.
   */
  providerLogout: boolean;
}

export const OIDC_LOGIN_PATH = "/auth/oidc/login";
export const OIDC_CALLBACK_PATH = "/auth/oidc/callback";
/** POST: ends the console session, and with OIDC_PROVIDER_LOGOUT the identity provider's too. */
export const OIDC_LOGOUT_PATH = "/auth/oidc/logout";
/** The ID token of an SSO session, sealed, kept for the sign-out's id_token_hint (only with OIDC_PROVIDER_LOGOUT). */
const HINT_COOKIE = "tollgate_oidc_hint";
const HINT_BINDING = "console/oidc-logout-hint";
/** A sealed ID token longer than this is not kept (a browser drops a cookie past about 4 KB): sign-out goes without the hint. */
const MAX_HINT_COOKIE_CHARS = 3500;
/** The state, nonce and PKCE verifier of one sign-in, sealed (AES-GCM) in a cookie between the two redirects. */
const FLOW_COOKIE = "tollgate_oidc_flow";
const FLOW_BINDING = "console/oidc-flow";
const FLOW_MAX_AGE_S = 600;

/** The most one answer of the identity provider (discovery, JWKS, token) may weigh: real ones are a few KB. */
export const MAX_PROVIDER_ANSWER_BYTES = 1024 * 1024;

/**
 * fetch for the identity provider, which is not trusted with the console's memory: an answer is read up to
 * MAX_PROVIDER_ANSWER_BYTES and the request fails past them (openid-client reads whole bodies unbounded, so a
 * discovery document that never ends would otherwise be held until the request's 30-second timeout).
 */
const boundedProviderFetch: OpenIdClient.CustomFetch = async (url, options) => {
  // openid-client's options are fetch's (its body type is only spelled wider).
  const response = await fetch(url, options as RequestInit);
  if (!response.body) return response;
  const body = await readUpTo(response.body.getReader(), MAX_PROVIDER_ANSWER_BYTES, () => new Error(`The identity provider's answer exceeds ${MAX_PROVIDER_ANSWER_BYTES} bytes`));
  // The body is already decoded: its length and encoding headers no longer describe it.
  const headers = new Headers(response.headers);
  headers.delete("content-encoding");
  headers.delete("content-length");
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
};

interface Flow {
  state: string;
  nonce: string;
  verifier: string;
  /** Epoch ms after which the flow is refused. */
  expiresAt: number;
}

export interface OidcSignIn {
  displayName: string;
  only: boolean;
  /** Whether sign-out goes through POST /auth/oidc/logout to end the identity provider's session too. */
  providerLogout: boolean;
  /** Answers GET /auth/oidc/login, GET /auth/oidc/callback and POST /auth/oidc/logout; null for any other. */
  handle(request: Request, url: URL, context: { secure: boolean; publicOrigin: string; /** The browser's address, for the audit log. */ clientAddress?: string | null }): Promise<Response | null>;
}

function authCookie(name: string, value: string, maxAgeS: number, secure: boolean): string {
  return [`${name}=${value}`, "Path=/auth/oidc", "HttpOnly", "SameSite=Lax", `Max-Age=${maxAgeS}`, ...(secure ? ["Secure"] : [])].join("; ");
}

/** Removes the sign-out hint of an SSO session (the logout procedure sends it too, whatever signed the session in). */
export function clearedOidcHintCookie(secure: boolean): string {
  return authCookie(HINT_COOKIE, "", 0, secure);
}

function flowCookie(value: string, maxAgeS: number, secure: boolean): string {
  return authCookie(FLOW_COOKIE, value, maxAgeS, secure);
}

function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 302, headers });
}

/** The sign-out's answer: where the page goes next, and the cookies removed. */
function signedOut(location: string, cookies: string[]): Response {
  const headers = new Headers({ "cache-control": "no-store" });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return Response.json({ location }, { headers });
}

/** Back to the sign-in page with a reason it shows (never a token or a secret). */
function refused(reason: string, secure: boolean): Response {
  return redirect(`/login?sso_error=${encodeURIComponent(reason)}`, [flowCookie("", 0, secure)]);
}

function claimText(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

/** The groups claim as a list of strings: an array of strings, or one string (some providers send one group so). */
export function groupsFrom(claims: Record<string, unknown>, claim: string): string[] {
  const value = claims[claim];
  if (typeof value === "string") return [value];
  if (!Array.isArray(value)) return [];
  return value.filter((group): group is string => typeof group === "string").slice(0, 1000);
}

function identityFrom(claims: Record<string, unknown>, groupsClaim: string): OidcIdentity {
  const subject = claimText(claims.sub);
  if (subject === null) throw new Error("the ID token has no subject");
  const email = claimText(claims.email);
  const verifiedEmail = email !== null && claims.email_verified === true ? email.toLowerCase() : null;
  return {
    subject,
    verifiedEmail,
    displayName: claimText(claims.preferred_username) ?? claimText(claims.name) ?? email ?? subject,
    groups: groupsFrom(claims, groupsClaim),
  };
}

/** The identity provider as discovered, with the client library that speaks to it. */
interface Provider {
  oidc: typeof OpenIdClient;
  config: OpenIdClient.Configuration;
}

/**
 * Single sign-on for the console with openid-client (panva): authorization code with PKCE (S256), state
 * and nonce; the issuer's metadata discovered from OIDC_ISSUER on first use (and again after a failure).
 * The ID token is validated by openid-client: issuer, audience, expiry, nonce, and its signature against
 * the issuer's JWKS (non-repudiation checks turned on: a token altered on its way is refused even over
 * TLS). The user is then matched or created and given a console session (admin/oidc/oidc-sign-in-user.ts).
 */
export function createOidcSignIn(deps: { settings: OidcSettings; db: Database; secretBox: SecretBox; sessionTtlMs: number; log: ConsoleLog }): OidcSignIn {
  const { settings, db, secretBox, log } = deps;
  let configuration: Promise<Provider> | null = null;
  // openid-client (with jose) is loaded by the first sign-in: a console without SSO, or before anyone uses it, never holds it.
  const configured = (): Promise<Provider> => {
    configuration ??= import("openid-client")
      .then(async (oidc) => ({
        oidc,
        config: await oidc.discovery(new URL(settings.issuer), settings.clientId, undefined, oidc.ClientSecretBasic(settings.clientSecret), {
          execute: [oidc.enableNonRepudiationChecks, ...(settings.allowHttpIssuer ? [oidc.allowInsecureRequests] : [])],
          [oidc.customFetch]: boundedProviderFetch,
        }),
      }))
      .catch((error: unknown) => {
        configuration = null;
        throw error;
      });
    return configuration;
  };

  async function login(secure: boolean, publicOrigin: string): Promise<Response> {
    let provider: Provider;
    try {
      provider = await configured();
    } catch (error) {
      log("error", "single sign-on: discovery failed", { issuer: settings.issuer, error: error instanceof Error ? error.message : String(error) });
      return refused("The identity provider cannot be reached. Try again shortly.", secure);
    }
    const { oidc, config } = provider;
    const flow: Flow = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier(), expiresAt: Date.now() + FLOW_MAX_AGE_S * 1000 };
    const location = oidc.buildAuthorizationUrl(config, {
      redirect_uri: `${publicOrigin}${OIDC_CALLBACK_PATH}`,
      scope: "openid profile email",
      code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: "S256",
      state: flow.state,
      nonce: flow.nonce,
    });
    const sealed = encodeURIComponent(await secretBox.encrypt(JSON.stringify(flow), FLOW_BINDING));
    return redirect(location.href, [flowCookie(sealed, FLOW_MAX_AGE_S, secure)]);
  }

  async function callback(request: Request, url: URL, secure: boolean, publicOrigin: string, clientAddress: string | null): Promise<Response> {
    const sealed = readCookie(request.headers.get("cookie"), FLOW_COOKIE);
    if (sealed === null) return refused("The sign-in took too long or was started elsewhere. Try again.", secure);
    let flow: Flow;
    try {
      flow = JSON.parse(await secretBox.decrypt(decodeURIComponent(sealed), FLOW_BINDING)) as Flow;
    } catch {
      return refused("The sign-in could not be verified. Try again.", secure);
    }
    if (flow.expiresAt <= Date.now()) return refused("The sign-in took too long. Try again.", secure);
    let claims: Record<string, unknown>;
    let idTokenText: string | undefined;
    try {
      const { oidc, config } = await configured();
      // The URL the provider redirected to, as the provider saw it (behind a proxy: the public origin).
      const currentUrl = new URL(`${publicOrigin}${OIDC_CALLBACK_PATH}${url.search}`);
      const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      const idToken = tokens.claims();
      if (!idToken) throw new Error("no ID token");
      claims = idToken as Record<string, unknown>;
      idTokenText = tokens.id_token;
    } catch (error) {
      // The reason goes to the log (a code, never a token); the browser gets one message.
      const code = (error as { code?: unknown }).code;
      log("warn", "single sign-on refused", { reason: error instanceof Error ? error.message : String(error), ...(typeof code === "string" ? { code } : {}) });
      return refused("The identity provider's answer could not be verified. Try again, or ask an administrator.", secure);
    }
    let identity: OidcIdentity;
    try {
      identity = identityFrom(claims, settings.groupsClaim);
    } catch {
      return refused("The identity provider did not say who you are.", secure);
    }
    const signedIn = await signInOidcUser(db, identity, { adminGroups: settings.adminGroups }, clientAddress);
    if (!signedIn.enabled) return refused("Your account is disabled.", secure);
    const secret = await createSession(db, signedIn.userId, deps.sessionTtlMs);
    log("info", "single sign-on", { userId: signedIn.userId, created: signedIn.created, role: signedIn.role });
    const cookies = [flowCookie("", 0, secure), sessionCookie(secret, { maxAgeMs: deps.sessionTtlMs, secure })];
    if (settings.providerLogout && idTokenText) {
      const hint = encodeURIComponent(await secretBox.encrypt(idTokenText, HINT_BINDING));
      // As long as the session can last, renewed: it goes with the session at sign-out.
      if (hint.length <= MAX_HINT_COOKIE_CHARS) cookies.push(authCookie(HINT_COOKIE, hint, Math.floor(SESSION_MAX_LIFETIME_MS / 1000), secure));
      else log("warn", "single sign-on: the ID token is too large to keep for sign-out; the provider will be asked to end its session without it", { bytes: idTokenText.length });
    }
    return redirect("/", cookies);
  }

  /**
   * Sign-out, a POST from the console's page (a cross-site POST carries no SameSite=Lax cookie, so another
   * site cannot sign anyone out). Ends the console session and answers `{"location"}`: where the page sends
   * the browser next. With OIDC_PROVIDER_LOGOUT and an SSO session, the provider's end_session_endpoint (the
   * ID token as id_token_hint, back to the sign-in page after); otherwise (a password session, a provider
   * with no end-session endpoint, or one that cannot be reached) the sign-in page. JSON rather than a
   * redirect: the console's CSP (`form-action 'self'`) would block a form whose answer leaves the origin.
   */
  async function logout(request: Request, secure: boolean, publicOrigin: string): Promise<Response> {
    const cookieHeader = request.headers.get("cookie");
    const session = readCookie(cookieHeader, SESSION_COOKIE);
    if (session) await deleteSession(db, session);
    const cookies = [clearedSessionCookie(secure), clearedOidcHintCookie(secure)];
    const sealedHint = readCookie(cookieHeader, HINT_COOKIE);
    if (!settings.providerLogout || session === null || sealedHint === null) return signedOut("/login", cookies);
    let idTokenHint: string | undefined;
    try {
      idTokenHint = await secretBox.decrypt(decodeURIComponent(sealedHint), HINT_BINDING);
    } catch {
      // A hint that does not open (another key, altered) is left out: the provider may ask the user to confirm.
    }
    try {
      const { oidc, config } = await configured();
      if (!config.serverMetadata().end_session_endpoint) return signedOut("/login", cookies);
      const location = oidc.buildEndSessionUrl(config, {
        post_logout_redirect_uri: `${publicOrigin}/login`,
        ...(idTokenHint ? { id_token_hint: idTokenHint } : {}),
      });
      return signedOut(location.href, cookies);
    } catch (error) {
      log("warn", "single sign-on: sign-out at the provider skipped", { error: error instanceof Error ? error.message : String(error) });
      return signedOut("/login", cookies);
    }
  }

  return {
    displayName: settings.displayName,
    only: settings.only,
    providerLogout: settings.providerLogout,
    async handle(request, url, { secure, publicOrigin, clientAddress }) {
      if (url.pathname === OIDC_LOGOUT_PATH && request.method === "POST") return logout(request, secure, publicOrigin);
      if (request.method !== "GET") return null;
      if (url.pathname === OIDC_LOGIN_PATH) return login(secure, publicOrigin);
      if (url.pathname === OIDC_CALLBACK_PATH) return callback(request, url, secure, publicOrigin, clientAddress ?? null);
      return null;
    },
  };
}
