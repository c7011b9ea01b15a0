import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { auditLog, teamMembers, teams, users } from "@tollgate/db";
import { asc, eq } from "drizzle-orm";
import type { OidcSettings } from "../../apps/console/src/create-console";
import { addTeamMember } from "../../packages/admin/src/index";
import { startTestOidcProvider, type TestOidcProvider } from "../helpers/test-oidc-provider";
import { SETUP_TIMEOUT_MS } from "../helpers/timeouts";
import { type ConsoleUnderTest, rejection, startConsole } from "./console-fixture";

// A bound on hangs for the set-up (migrations, the provider), not a tuned timing.
setDefaultTimeout(60_000);

/** The console is driven in process at this origin; the provider and its proxy listen on real ports. */
const CONSOLE_ORIGIN = "http://console.test";
/** The address the console sees the browser at (the audit log's source address). */
const BROWSER_ADDRESS = "198.51.100.23";

/** The audit rows naming `userId` as the actor, oldest first. */
async function auditRowsBy(userId: number) {
  return app.database.handle.db.select().from(auditLog).where(eq(auditLog.actorId, userId)).orderBy(asc(auditLog.id));
}

let provider: TestOidcProvider;
let app: ConsoleUnderTest;
let issuer: string;

beforeAll(async () => {
  provider = await startTestOidcProvider({
    redirectUri: `${CONSOLE_ORIGIN}/auth/oidc/callback`,
    postLogoutRedirectUri: `${CONSOLE_ORIGIN}/login`,
    accounts: {
      "alice-sub": { email: "alice@example.com", emailVerified: true, username: "alice", groups: ["tollgate-admins", "research"] },
      "bob-sub": { email: "bob@example.com", emailVerified: true, username: "bob", groups: ["research"] },
      "carol-sub": { email: "carol@example.com", emailVerified: false, username: "carol", groups: [] },
      "dave-sub": { email: "Dave@Example.com", emailVerified: true, username: "dave", groups: [] },
    },
  });
  issuer = provider.issuer;
  app = await startConsole({ oidc: oidcSettings(false), publicBaseUrl: CONSOLE_ORIGIN, clientAddress: () => BROWSER_ADDRESS });
  await app.database.handle.db.insert(teams).values({ name: "Research", oidcGroup: "research" });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await provider?.stop();
  await app?.close();
}, SETUP_TIMEOUT_MS);

function oidcSettings(only: boolean, providerLogout = false): OidcSettings {
  return {
    issuer,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    groupsClaim: "groups",
    adminGroups: ["tollgate-admins"],
    displayName: "Example SSO",
    only,
    allowHttpIssuer: true,
    providerLogout,
  };
}

/**
 * A browser, as far as sign-in needs one: follows redirects by hand, keeps cookies per origin, and sends
 * requests for the console's origin to the console in process. Returns the console's last answer.
 */
async function browse(
  start: string,
  target: ConsoleUnderTest = app,
): Promise<{ response: Response; consoleCookie: string | null; consoleCookies: Map<string, string>; visited: string[] }> {
  const jars = new Map<string, Map<string, string>>();
  let url = new URL(start, CONSOLE_ORIGIN);
  const visited: string[] = [];
  for (let hop = 0; hop < 20; hop++) {
    visited.push(url.href);
    const jar = jars.get(url.origin) ?? new Map<string, string>();
    jars.set(url.origin, jar);
    const request = new Request(url, { headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; ") }, redirect: "manual" });
    const response = url.origin === CONSOLE_ORIGIN ? ((await target.console.handle(request)) ?? new Response(null, { status: 404 })) : await fetch(request);
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const separator = pair!.indexOf("=");
      const name = pair!.slice(0, separator).trim();
      const value = pair!.slice(separator + 1).trim();
      if (value === "" || /max-age=0/i.test(cookie) || /expires=thu, 01 jan 1970/i.test(cookie)) jar.delete(name);
      else jar.set(name, value);
    }
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || !location) {
      const session = jars.get(CONSOLE_ORIGIN)?.get("tollgate_session");
      return { response, consoleCookie: session ? `tollgate_session=${session}` : null, consoleCookies: jars.get(CONSOLE_ORIGIN) ?? new Map(), visited };
    }
    url = new URL(location, url);
    // The console's last word is its redirect home (or to the sign-in page with a reason): stop there.
    if (url.origin === CONSOLE_ORIGIN && !url.pathname.startsWith("/auth/oidc/")) {
      const session = jars.get(CONSOLE_ORIGIN)?.get("tollgate_session");
      visited.push(url.href);
      return { response, consoleCookie: session ? `tollgate_session=${session}` : null, consoleCookies: jars.get(CONSOLE_ORIGIN) ?? new Map(), visited };
    }
  }
  throw new Error(`too many redirects: ${visited.join(" -> ")}`);
}

async function userNamed(name: string) {
  const [row] = await app.database.handle.db.select().from(users).where(eq(users.name, name));
  return row;
}

describe("single sign-on with a real OpenID provider", () => {
  test("the sign-in page offers the provider by name, beside passwords", async () => {
    expect(await app.anonymous().auth.signInOptions()).toEqual({ oidc: { name: "Example SSO", path: "/auth/oidc/login", logoutPath: null }, password: true });
  });

  test("a first sign-in goes through the provider with PKCE, creates the user by sub, and lands with the mapped role and teams", async () => {
    provider.signInAs("alice-sub");
    const { consoleCookie, visited } = await browse("/auth/oidc/login");
    const authorize = new URL(visited.find((href) => href.startsWith(`${issuer}/auth?`))!);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("nonce")).not.toBeNull();
    expect(visited.at(-1)).toBe(`${CONSOLE_ORIGIN}/`);
    expect(consoleCookie).not.toBeNull();
    const me = await app.anonymous({ headers: { cookie: consoleCookie! } }).auth.me();
    expect(me).toMatchObject({ name: "alice", role: "admin" });
    const alice = await userNamed("alice");
    expect(alice).toMatchObject({ oidcSubject: "alice-sub", email: "alice@example.com", passwordHash: null });
    const caller = app.anonymous({ headers: { cookie: consoleCookie! } });
    const memberships = await app.database.handle.db.select({ role: teamMembers.role, source: teamMembers.source }).from(teamMembers).where(eq(teamMembers.userId, alice!.id));
    expect(memberships).toEqual([{ role: "member", source: "oidc" }]);
    // The sign-in's changes are audited in the user's name, from the browser's address.
    const audited = await auditRowsBy(alice!.id);
    expect(audited.map((row) => row.action)).toEqual(["user.create", "team.member_add"]);
    for (const row of audited) expect(row).toMatchObject({ actorKind: "user", actorName: "alice", sourceAddress: BROWSER_ADDRESS });
    expect(audited[0]!.after).toMatchObject({ oidcSubject: "alice-sub", role: "admin" });
    // Logout ends the session: the cookie no longer opens anything.
    await caller.auth.logout();
    expect((await rejection(caller.auth.me())).code).toBe("UNAUTHORIZED");
  });

  test("a later sign-in matches the same user, follows the groups claim, and keeps memberships made by hand", async () => {
    provider.signInAs("bob-sub");
    await browse("/auth/oidc/login");
    const bob = await userNamed("bob");
    const [research] = await app.database.handle.db.select().from(teams).where(eq(teams.name, "Research"));
    const [manual] = await app.database.handle.db.insert(teams).values({ name: "Manual" }).returning();
    await addTeamMember(app.database.handle.db, { role: "admin", id: null, group: null }, { teamId: manual!.id, userId: bob!.id, role: "team_admin" });
    provider.accounts.get("bob-sub")!.groups = [];
    const { consoleCookie } = await browse("/auth/oidc/login");
    expect(consoleCookie).not.toBeNull();
    expect((await app.database.handle.db.select().from(users).where(eq(users.oidcSubject, "bob-sub"))).map((row) => row.id)).toEqual([bob!.id]);
    const memberships = await app.database.handle.db.select({ teamId: teamMembers.teamId, role: teamMembers.role }).from(teamMembers).where(eq(teamMembers.userId, bob!.id));
    expect(memberships).toEqual([{ teamId: manual!.id, role: "team_admin" }]);
    expect(memberships.some((membership) => membership.teamId === research!.id)).toBe(false);
    expect((await auditRowsBy(bob!.id)).map((row) => row.action)).toEqual(["user.create", "team.member_add", "team.member_remove"]);
  });

  test("a user with a password and the same verified email is linked on the first sign-in; an unverified email is not matched", async () => {
    const existing = await app.signedInUser({ name: "carol-local" });
    await app.database.handle.db.update(users).set({ email: "carol@example.com" }).where(eq(users.id, existing.id));
    provider.signInAs("carol-sub");
    await browse("/auth/oidc/login");
    expect((await userNamed("carol-local"))!.oidcSubject).toBeNull();
    expect((await userNamed("carol"))!.oidcSubject).toBe("carol-sub");
    const dave = await app.signedInUser({ name: "dave-local" });
    await app.database.handle.db.update(users).set({ email: "dave@example.com" }).where(eq(users.id, dave.id));
    provider.signInAs("dave-sub");
    const { consoleCookie } = await browse("/auth/oidc/login");
    expect(await app.anonymous({ headers: { cookie: consoleCookie! } }).auth.me()).toMatchObject({ id: dave.id, name: "dave-local" });
    expect((await userNamed("dave-local"))!.oidcSubject).toBe("dave-sub");
    expect((await auditRowsBy(dave.id)).map((row) => row.action)).toEqual(["user.oidc_link"]);
    expect(await userNamed("dave")).toBeUndefined();
  });

  test("an ID token altered on its way (groups rewritten, signature kept) is refused: no session, no administrator", async () => {
    provider.accounts.set("mallory-sub", { email: "mallory@example.com", emailVerified: true, username: "mallory", groups: [] });
    provider.signInAs("mallory-sub");
    provider.setTampering(true);
    try {
      const { consoleCookie, visited } = await browse("/auth/oidc/login");
      expect(consoleCookie).toBeNull();
      expect(visited.at(-1)).toStartWith(`${CONSOLE_ORIGIN}/login?sso_error=`);
    } finally {
      provider.setTampering(false);
    }
    expect(await userNamed("mallory")).toBeUndefined();
    // The same flow untampered signs in, as a user.
    const { consoleCookie } = await browse("/auth/oidc/login");
    expect((await app.anonymous({ headers: { cookie: consoleCookie! } }).auth.me()).role).toBe("user");
  });

  test("a disabled user is refused at sign-in, with no session", async () => {
    provider.accounts.set("erin-sub", { email: "erin@example.com", emailVerified: true, username: "erin", groups: [] });
    provider.signInAs("erin-sub");
    expect((await browse("/auth/oidc/login")).consoleCookie).not.toBeNull();
    await app.database.handle.db.update(users).set({ status: "disabled" }).where(eq(users.oidcSubject, "erin-sub"));
    const { consoleCookie, visited } = await browse("/auth/oidc/login");
    expect(consoleCookie).toBeNull();
    expect(decodeURIComponent(visited.at(-1)!)).toContain("Your account is disabled");
  });

  test("a callback without the flow's cookie, or with a forged state, is refused", async () => {
    const bare = await app.console.handle(new Request(`${CONSOLE_ORIGIN}/auth/oidc/callback?code=x&state=y`));
    expect(bare!.status).toBe(302);
    expect(bare!.headers.get("location")).toStartWith("/login?sso_error=");
    const login = await app.console.handle(new Request(`${CONSOLE_ORIGIN}/auth/oidc/login`));
    const flow = login!.headers.getSetCookie()[0]!.split(";")[0]!;
    const forged = await app.console.handle(new Request(`${CONSOLE_ORIGIN}/auth/oidc/callback?code=x&state=forged`, { headers: { cookie: flow } }));
    expect(forged!.headers.get("location")).toStartWith("/login?sso_error=");
    expect(forged!.headers.getSetCookie().some((cookie) => cookie.startsWith("tollgate_session="))).toBe(false);
  });

  test("a callback replayed with its flow cookie after it signed in, or with a 10 KB code, gives no second session", async () => {
    provider.signInAs("bob-sub");
    const login = await app.console.handle(new Request(`${CONSOLE_ORIGIN}/auth/oidc/login`));
    const flow = login!.headers.getSetCookie()[0]!.split(";")[0]!;
    // Through the provider without the console's cookies: the console refuses that first arrival unexchanged.
    const { visited } = await browse(login!.headers.get("location")!);
    const callback = visited.find((href) => href.startsWith(`${CONSOLE_ORIGIN}/auth/oidc/callback?`))!;
    const hasSession = (response: Response | null) => response!.headers.getSetCookie().some((cookie) => cookie.startsWith("tollgate_session="));
    const huge = new URL(callback);
    huge.searchParams.set("code", "c".repeat(10_000));
    const hugeCode = await app.console.handle(new Request(huge, { headers: { cookie: flow } }));
    expect(hugeCode!.headers.get("location")).toStartWith("/login?sso_error=");
    expect(hasSession(hugeCode)).toBe(false);
    const first = await app.console.handle(new Request(callback, { headers: { cookie: flow } }));
    expect(first!.headers.get("location")).toBe("/");
    expect(hasSession(first)).toBe(true);
    const replayed = await app.console.handle(new Request(callback, { headers: { cookie: flow } }));
    expect(replayed!.headers.get("location")).toStartWith("/login?sso_error=");
    expect(hasSession(replayed)).toBe(false);
  });
});

/** POST /auth/oidc/logout as the console's page sends it, with these cookies. */
function signOutPost(target: ConsoleUnderTest, cookies: Map<string, string>): Promise<Response | null> {
  const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  return target.console.handle(new Request(`${CONSOLE_ORIGIN}/auth/oidc/logout`, { method: "POST", headers: cookie ? { cookie } : {}, redirect: "manual" }));
}

/** Where the sign-out's answer sends the page next. */
async function nextLocation(answer: Response): Promise<string> {
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { location: string }).location;
}

/** The names of the cookies an answer removes (Max-Age=0). */
function clearedCookies(response: Response): string[] {
  return response.headers
    .getSetCookie()
    .filter((cookie) => /max-age=0/i.test(cookie))
    .map((cookie) => cookie.slice(0, cookie.indexOf("=")));
}

describe("OIDC_PROVIDER_LOGOUT", () => {
  let logoutApp: ConsoleUnderTest;
  beforeAll(async () => {
    logoutApp = await startConsole({ oidc: oidcSettings(false, true), publicBaseUrl: CONSOLE_ORIGIN, clientAddress: () => BROWSER_ADDRESS }, app.database);
  }, SETUP_TIMEOUT_MS);

  test("signing out of an SSO session ends it, then sends the browser to the provider's end-session endpoint with the ID token as hint", async () => {
    expect((await logoutApp.anonymous().auth.signInOptions()).oidc?.logoutPath).toBe("/auth/oidc/logout");
    provider.signInAs("alice-sub");
    const { consoleCookie, consoleCookies } = await browse("/auth/oidc/login", logoutApp);
    expect(consoleCookie).not.toBeNull();
    expect(consoleCookies.has("tollgate_oidc_hint")).toBe(true);
    const sealedHint = decodeURIComponent(consoleCookies.get("tollgate_oidc_hint")!);

    const answer = (await signOutPost(logoutApp, consoleCookies))!;
    expect(answer.status).toBe(200);
    const location = new URL(await nextLocation(answer));
    expect(`${location.origin}${location.pathname}`).toBe(`${issuer}/session/end`);
    expect(location.searchParams.get("client_id")).toBe(provider.clientId);
    expect(location.searchParams.get("post_logout_redirect_uri")).toBe(`${CONSOLE_ORIGIN}/login`);
    const hint = location.searchParams.get("id_token_hint")!;
    const claims = JSON.parse(Buffer.from(hint.split(".")[1]!, "base64url").toString("utf8")) as { sub: string; aud: string };
    expect(claims).toMatchObject({ sub: "alice-sub", aud: provider.clientId });
    // The hint was sealed: no part of the ID token (its header, claims or signature) is readable in the cookie.
    // (A fixed "eyJ" probe would fail at random: sealed bytes in base64url hold any three characters.)
    for (const part of hint.split(".")) expect(sealedHint).not.toContain(part);
    expect(clearedCookies(answer).sort()).toEqual(["tollgate_oidc_hint", "tollgate_session"]);
    expect((await rejection(logoutApp.anonymous({ headers: { cookie: consoleCookie! } }).auth.me())).code).toBe("UNAUTHORIZED");
    // The provider (a certified OP) takes the request: it asks to confirm the sign-out, it does not refuse it.
    const atProvider = await fetch(location, { redirect: "manual" });
    expect(atProvider.status).toBe(200);
    expect(await atProvider.text()).toContain("logout");
  });

  test("a password session signs out to the sign-in page, and a POST from another site (no cookies) ends nothing", async () => {
    const name = "logout-password-user";
    const { cookie } = await app.signedInUser({ name });
    const session = new Map([["tollgate_session", cookie.slice(cookie.indexOf("=") + 1)]]);
    const crossSite = (await signOutPost(logoutApp, new Map()))!;
    expect(await nextLocation(crossSite)).toBe("/login");
    expect((await logoutApp.anonymous({ headers: { cookie } }).auth.me()).name).toBe(name);

    const answer = (await signOutPost(logoutApp, session))!;
    expect(await nextLocation(answer)).toBe("/login");
    expect((await rejection(logoutApp.anonymous({ headers: { cookie } }).auth.me())).code).toBe("UNAUTHORIZED");
  });

  test("without OIDC_PROVIDER_LOGOUT no ID token is kept, and signing out never leaves the console", async () => {
    provider.signInAs("bob-sub");
    const { consoleCookies } = await browse("/auth/oidc/login");
    expect(consoleCookies.has("tollgate_session")).toBe(true);
    expect(consoleCookies.has("tollgate_oidc_hint")).toBe(false);
    const answer = (await signOutPost(app, consoleCookies))!;
    expect(await nextLocation(answer)).toBe("/login");
  });
});

describe("OIDC_ONLY", () => {
  test("turns password sign-in off in the console and says where to sign in", async () => {
    const only = await startConsole(
      { oidc: oidcSettings(true) },
      app.database,
    );
    const name = "password-user";
    await app.signedInUser({ name });
    expect(await only.anonymous().auth.signInOptions()).toEqual({ oidc: { name: "Example SSO", path: "/auth/oidc/login", logoutPath: null }, password: false });
    const refused = await rejection(only.login(name));
    expect(refused.code).toBe("FORBIDDEN");
    expect(refused.message).toBe("Password sign-in is turned off: sign in with Example SSO");
  });
});
