import { type OidcIdentity, signInOidcUser } from "@tollgate/admin";
import type { Database } from "@tollgate/db";
import { readUpTo, type SecretBox } from "@tollgate/shared";
import * as oidc from "openid-client";
import type { ConsoleLog } from "../trpc";
import { createSession, readCookie, sessionCookie } from "./sessions";

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
}

export const OIDC_LOGIN_PATH = "/auth/oidc/login";
export const OIDC_CALLBACK_PATH = "/auth/oidc/callback";
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
const boundedProviderFetch: oidc.CustomFetch = async (url, options) => {
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
  /** Answers GET /auth/oidc/login and GET /auth/oidc/callback; null for any other path. */
  handle(request: Request, url: URL, context: { secure: boolean; publicOrigin: string; /** The browser's address, for the audit log. */ clientAddress?: string | null }): Promise<Response | null>;
}

function flowCookie(value: string, maxAgeS: number, secure: boolean): string {
  return [`${FLOW_COOKIE}=${value}`, "Path=/auth/oidc", "HttpOnly", "SameSite=Lax", `Max-Age=${maxAgeS}`, ...(secure ? ["Secure"] : [])].join("; ");
}

function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 302, headers });
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

/**
 * Single sign-on for the console with openid-client (panva): authorization code with PKCE (S256), state
 * and nonce; the issuer's metadata discovered from OIDC_ISSUER on first use (and again after a failure).
 * The ID token is validated by openid-client: issuer, audience, expiry, nonce, and its signature against
 * the issuer's JWKS (non-repudiation checks turned on: a token altered on its way is refused even over
 * TLS). The user is then matched or created and given a console session (admin/oidc/oidc-sign-in-user.ts).
 */
export function createOidcSignIn(deps: { settings: OidcSettings; db: Database; secretBox: SecretBox; sessionTtlMs: number; log: ConsoleLog }): OidcSignIn {
  const { settings, db, secretBox, log } = deps;
  let configuration: Promise<oidc.Configuration> | null = null;
  const configured = (): Promise<oidc.Configuration> => {
    configuration ??= oidc
      .discovery(new URL(settings.issuer), settings.clientId, undefined, oidc.ClientSecretBasic(settings.clientSecret), {
        execute: [oidc.enableNonRepudiationChecks, ...(settings.allowHttpIssuer ? [oidc.allowInsecureRequests] : [])],
        [oidc.customFetch]: boundedProviderFetch,
      })
      .catch((error: unknown) => {
        configuration = null;
        throw error;
      });
    return configuration;
  };

  async function login(secure: boolean, publicOrigin: string): Promise<Response> {
    let config: oidc.Configuration;
    try {
      config = await configured();
    } catch (error) {
      log("error", "single sign-on: discovery failed", { issuer: settings.issuer, error: error instanceof Error ? error.message : String(error) });
      return refused("The identity provider cannot be reached. Try again shortly.", secure);
    }
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
    try {
      const config = await configured();
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
    return redirect("/", [flowCookie("", 0, secure), sessionCookie(secret, { maxAgeMs: deps.sessionTtlMs, secure })]);
  }

  return {
    displayName: settings.displayName,
    only: settings.only,
    async handle(request, url, { secure, publicOrigin, clientAddress }) {
      if (request.method !== "GET") return null;
      if (url.pathname === OIDC_LOGIN_PATH) return login(secure, publicOrigin);
      if (url.pathname === OIDC_CALLBACK_PATH) return callback(request, url, secure, publicOrigin, clientAddress ?? null);
      return null;
    },
  };
}
