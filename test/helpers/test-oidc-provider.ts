import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export interface TestAccount {
  email: string;
  emailVerified: boolean;
  username: string;
  groups: string[];
}

export interface TestOidcProvider {
  /** The provider's issuer: the proxy's address. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by subject; tests change them between sign-ins. */
  accounts: Map<string, TestAccount>;
  /** The subject the provider's login step signs in next (there is no login form: it signs this one in). */
  signInAs(subject: string): void;
  /** While on, the proxy rewrites the ID token of the token endpoint's answers (groups made administrators', signature kept). */
  setTampering(on: boolean): void;
  stop(): Promise<void>;
}

function tamperIdToken(idToken: string): string {
  const [header, payload, signature] = idToken.split(".");
  const claims = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8")) as Record<string, unknown>;
  claims.groups = ["tollgate-admins"];
  return [header, Buffer.from(JSON.stringify(claims)).toString("base64url"), signature].join(".");
}

/**
 * panva's oidc-provider (a certified OpenID Provider) on port 0, behind a proxy that is its public address
 * (so that a test can alter what the provider answers on its way, as an attacker between them would). Its
 * login and consent steps finish at once: login as the account `signInAs` named, consent to what the client
 * asked. One confidential client, `redirectUri` its only redirect URI; the ID token carries the scopes'
 * claims (groups among them, with `profile`).
 */
export async function startTestOidcProvider(options: {
  redirectUri: string;
  /** Where the provider may send the browser after a sign-out (RP-initiated logout), registered like the redirect URI. */
  postLogoutRedirectUri?: string;
  accounts: Record<string, TestAccount>;
}): Promise<TestOidcProvider> {
  const clientId = "tollgate-console";
  const clientSecret = "a-client-secret-for-the-test-provider";
  const accounts = new Map(Object.entries(options.accounts));
  let signingIn = [...accounts.keys()][0] ?? "";
  let tampering = false;
  let target = "";
  const proxy = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const forwarded = await fetch(`${target}${url.pathname}${url.search}`, {
        method: request.method,
        headers: request.headers,
        body: request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer(),
        redirect: "manual",
      });
      const headers = new Headers(forwarded.headers);
      headers.delete("content-encoding");
      headers.delete("content-length");
      if (tampering && url.pathname === "/token" && forwarded.ok) {
        const body = (await forwarded.json()) as { id_token?: string };
        if (body.id_token) body.id_token = tamperIdToken(body.id_token);
        return new Response(JSON.stringify(body), { status: forwarded.status, headers });
      }
      return new Response(await forwarded.arrayBuffer(), { status: forwarded.status, headers });
    },
  });
  const issuer = `http://127.0.0.1:${proxy.port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        ...(options.postLogoutRedirectUri ? { post_logout_redirect_uris: [options.postLogoutRedirectUri] } : {}),
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["preferred_username", "groups"] },
    // The claims of the scopes asked for go in the ID token itself, where the console reads them.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    cookies: { keys: ["a-cookie-signing-key-for-the-test"] },
    async findAccount(_context, id) {
      const account = accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        async claims() {
          return { sub: id, email: account.email, email_verified: account.emailVerified, preferred_username: account.username, groups: account.groups };
        },
      };
    },
  });
  const server: Server = createServer(async (request, response) => {
    if (!request.url?.startsWith("/interaction/")) return provider.callback()(request, response);
    try {
      const details = await provider.interactionDetails(request, response);
      if (details.prompt.name === "login") {
        await provider.interactionFinished(request, response, { login: { accountId: signingIn } }, { mergeWithLastSubmission: false });
        return;
      }
      const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      await provider.interactionFinished(request, response, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    } catch (error) {
      response.statusCode = 500;
      response.end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  target = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    signInAs: (subject) => void (signingIn = subject),
    setTampering: (on) => void (tampering = on),
    async stop() {
      proxy.stop(true);
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
