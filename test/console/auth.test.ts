import { afterAll, beforeAll, describe, expect, setDefaultTimeout, spyOn, test } from "bun:test";
import { cliOperator, createSetupCodes, createUser, createUserSchema } from "../../packages/admin/src/index";
import { sessions, users } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { hashSessionSecret } from "../../apps/console/src/auth/sessions";
import { TEST_SECRET } from "../helpers/gateway-fixture";
import { PASSWORD, rejection, startConsole, type ConsoleUnderTest } from "./console-fixture";

// For tests and hooks of this file (the preload's setDefaultTimeout does not reach them): a fresh PGlite
// takes seconds to migrate on a busy machine. A bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

describe("console sign-in", () => {
  let harness: ConsoleUnderTest;
  beforeAll(async () => {
    // Delays long enough that no test outlasts one, so that a refusal here is never a matter of timing.
    harness = await startConsole({ loginLimits: { freeFailures: 3, firstDelayMs: 600_000, perAddress: 5, addressWindowMs: 600_000 } });
  });
  afterAll(() => harness.close());

  test("login sets an HttpOnly SameSite=Lax cookie whose secret is stored only as a SHA-256", async () => {
    const { name } = await harness.signedInUser();
    const responseHeaders = new Headers();
    await harness.anonymous({ responseHeaders }).auth.login({ name, password: PASSWORD });
    const setCookie = responseHeaders.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^tollgate_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    const secret = setCookie.split(";")[0]!.split("=")[1]!;
    const rows = await harness.database.handle.db.select({ id: sessions.id }).from(sessions);
    expect(rows.map((row) => row.id)).toContain(hashSessionSecret(secret));
    expect(rows.map((row) => row.id)).not.toContain(secret);
  });

  test("the cookie is Secure when the request came over https", async () => {
    const { name } = await harness.signedInUser();
    const responseHeaders = new Headers();
    await harness.anonymous({ responseHeaders, url: "https://console.example/" }).auth.login({ name, password: PASSWORD });
    expect(responseHeaders.get("set-cookie")).toContain("; Secure");
  });

  test("a signed-in user reads who they are; without a session the call is unauthorized", async () => {
    const { caller, name } = await harness.signedInUser();
    expect((await caller.auth.me()).name).toBe(name);
    expect((await rejection(harness.anonymous().auth.me())).code).toBe("UNAUTHORIZED");
    expect((await rejection(harness.anonymous({ headers: { cookie: "tollgate_session=forged" } }).auth.me())).code).toBe("UNAUTHORIZED");
  });

  test("a wrong password is refused with one message for unknown names and wrong passwords", async () => {
    const { name } = await harness.signedInUser();
    const wrong = await rejection(harness.anonymous({ clientIp: "198.51.100.1" }).auth.login({ name, password: "not the password" }));
    const unknown = await rejection(harness.anonymous({ clientIp: "198.51.100.2" }).auth.login({ name: "nobody-here", password: "whatever1" }));
    expect(wrong.code).toBe("UNAUTHORIZED");
    expect(unknown.message).toBe(wrong.message);
  });

  test("logout ends the session on the server and clears the cookie", async () => {
    const { caller, cookie } = await harness.signedInUser();
    const responseHeaders = new Headers();
    await harness.anonymous({ headers: { cookie }, responseHeaders }).auth.logout();
    expect(responseHeaders.get("set-cookie")).toContain("Max-Age=0");
    expect((await rejection(caller.auth.me())).code).toBe("UNAUTHORIZED");
  });

  test("an expired session is refused", async () => {
    const { caller, cookie } = await harness.signedInUser();
    const id = hashSessionSecret(cookie.split("=")[1]!);
    await harness.database.handle.db.update(sessions).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(sessions.id, id));
    expect((await rejection(caller.auth.me())).code).toBe("UNAUTHORIZED");
  });

  test("a session in use every day still ends 30 days after sign-in, and its renewal never reaches past that", async () => {
    const { caller, cookie } = await harness.signedInUser();
    const id = hashSessionSecret(cookie.split("=")[1]!);
    const day = 24 * 60 * 60 * 1000;
    // 29.5 days old, last seen two hours ago: renewed, but only for the half day left, not a whole idle TTL.
    await harness.database.handle.db
      .update(sessions)
      .set({ createdAt: new Date(Date.now() - 29.5 * day), lastSeenAt: new Date(Date.now() - 2 * 60 * 60 * 1000), expiresAt: new Date(Date.now() + 6 * day) })
      .where(eq(sessions.id, id));
    const responseHeaders = new Headers();
    expect((await harness.anonymous({ headers: { cookie }, responseHeaders }).auth.me()).id).toBeGreaterThan(0);
    const maxAge = Number(/Max-Age=(\d+)/.exec(responseHeaders.get("set-cookie") ?? "")?.[1]);
    expect(maxAge).toBeGreaterThan(0.4 * 86_400);
    expect(maxAge).toBeLessThanOrEqual(0.5 * 86_400);
    const [renewed] = await harness.database.handle.db.select({ expiresAt: sessions.expiresAt }).from(sessions).where(eq(sessions.id, id));
    expect(renewed!.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 0.5 * day);
    // 31 days old, seen a minute ago and not idle-expired: refused all the same.
    await harness.database.handle.db
      .update(sessions)
      .set({ createdAt: new Date(Date.now() - 31 * day), lastSeenAt: new Date(Date.now() - 60_000), expiresAt: new Date(Date.now() + 6 * day) })
      .where(eq(sessions.id, id));
    expect((await rejection(caller.auth.me())).code).toBe("UNAUTHORIZED");
  });

  test("disabling a user ends their sessions", async () => {
    const admin = await harness.signedInUser({ role: "admin" });
    const user = await harness.signedInUser();
    await admin.caller.users.update({ id: user.id, status: "disabled" });
    expect((await rejection(user.caller.auth.me())).code).toBe("UNAUTHORIZED");
    expect((await rejection(harness.login(user.name))).code).toBe("UNAUTHORIZED");
  });

  test("40 concurrent attempts of one name and address: only the free failures are checked, the rest refused before any hash", async () => {
    const { name } = await harness.signedInUser();
    const clientIp = "203.0.113.40";
    const verify = spyOn(Bun.password, "verify");
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 40 }, () => rejection(harness.anonymous({ clientIp }).auth.login({ name, password: "wrong-password" }))),
      );
      const codes = outcomes.map((outcome) => outcome.code);
      expect(codes.filter((code) => code === "UNAUTHORIZED")).toHaveLength(3);
      expect(codes.filter((code) => code === "TOO_MANY_REQUESTS")).toHaveLength(37);
      expect(verify).toHaveBeenCalledTimes(3);
      // The right password from that address now waits too: a guess that happens to be right is not checked.
      const responseHeaders = new Headers();
      const limited = await rejection(harness.anonymous({ clientIp, responseHeaders }).auth.login({ name, password: PASSWORD }));
      expect(limited.code).toBe("TOO_MANY_REQUESTS");
      expect(limited.message).toMatch(/^Too many failed sign-in attempts\. Try again in \d+ minutes?\.$/);
      expect(Number(responseHeaders.get("retry-after"))).toBeGreaterThan(0);
      expect(verify).toHaveBeenCalledTimes(3);
    } finally {
      verify.mockRestore();
    }
  });

  test("failures from one address never keep the owner out from another", async () => {
    const { name } = await harness.signedInUser();
    for (let attempt = 0; attempt < 8; attempt++) {
      await rejection(harness.anonymous({ clientIp: "198.51.100.66" }).auth.login({ name, password: "wrong-password" }));
    }
    expect((await rejection(harness.anonymous({ clientIp: "198.51.100.66" }).auth.login({ name, password: PASSWORD }))).code).toBe("TOO_MANY_REQUESTS");
    const cookie = await harness.login(name, PASSWORD, { clientIp: "192.0.2.10" });
    expect((await harness.anonymous({ headers: { cookie } }).auth.me()).name).toBe(name);
  });

  test("a successful sign-in clears that address's failures for the name", async () => {
    const { name } = await harness.signedInUser();
    const clientIp = "198.51.100.31";
    for (let attempt = 0; attempt < 2; attempt++) {
      expect((await rejection(harness.anonymous({ clientIp }).auth.login({ name, password: "wrong-password" }))).code).toBe("UNAUTHORIZED");
    }
    await harness.login(name, PASSWORD, { clientIp });
    // Three more failures are free again; without the clearing, the second of them would wait.
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await rejection(harness.anonymous({ clientIp }).auth.login({ name, password: "wrong-password" }))).code).toBe("UNAUTHORIZED");
    }
  });

  test("attempts are limited per address across names", async () => {
    const { name } = await harness.signedInUser();
    const clientIp = "192.0.2.77";
    for (let attempt = 0; attempt < 5; attempt++) {
      await rejection(harness.anonymous({ clientIp }).auth.login({ name: `guess-${attempt}`, password: "wrong-password" }));
    }
    expect((await rejection(harness.anonymous({ clientIp }).auth.login({ name, password: PASSWORD }))).code).toBe("TOO_MANY_REQUESTS");
    // Another address is not affected.
    await harness.anonymous({ clientIp: "192.0.2.78" }).auth.login({ name, password: PASSWORD });
  });
});

describe("first-run setup", () => {
  test("is offered while no admin exists, creates the admin with the setup code and signs them in, then is closed", async () => {
    const harness = await startConsole();
    try {
      // A user without the admin role does not close setup.
      await harness.signedInUser({ role: "user" });
      expect(await harness.anonymous().auth.setupStatus()).toEqual({ needsSetup: true });
      const setupCode = (await harness.setupCode())!;
      expect(setupCode).toMatch(/^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){3}$/);
      const responseHeaders = new Headers();
      // Typed back in lower case and without the dashes: still the code.
      await harness.anonymous({ responseHeaders }).auth.setup({ setupCode: setupCode.toLowerCase().replaceAll("-", ""), name: "root", password: "a-long-password" });
      const cookie = (responseHeaders.get("set-cookie") ?? "").split(";")[0]!;
      const me = await harness.anonymous({ headers: { cookie } }).auth.me();
      expect(me).toMatchObject({ name: "root", role: "admin" });
      expect(await harness.anonymous().auth.setupStatus()).toEqual({ needsSetup: false });
      const again = await rejection(harness.anonymous().auth.setup({ setupCode, name: "intruder", password: "a-long-password" }));
      expect(again.code).toBe("FORBIDDEN");
      const [intruder] = await harness.database.handle.db.select().from(users).where(eq(users.name, "intruder"));
      expect(intruder).toBeUndefined();
      // Spent: no code is current once an administrator exists.
      expect(await harness.setupCode()).toBeNull();
    } finally {
      await harness.close();
    }
  });

  test("is refused without the right setup code from any address, also when users exist but none is an admin", async () => {
    const harness = await startConsole();
    try {
      // The README's CLI quickstart: users made by the CLI, no administrator yet.
      await harness.signedInUser({ role: "user" });
      const setupCode = (await harness.setupCode())!;
      const wrongCodes = ["", "AAAAA-BBBBB-CCCCC-DDDDD", setupCode.slice(0, -1), `${setupCode}0`];
      for (const clientIp of ["127.0.0.1", "::1", "203.0.113.9", null]) {
        for (const wrong of wrongCodes) {
          const refused = await rejection(harness.anonymous({ clientIp }).auth.setup({ setupCode: wrong, name: "stranger", password: "a-long-password" }));
          expect(refused.code).toBe(wrong === "" ? "BAD_REQUEST" : "FORBIDDEN");
          expect(Object.keys(refused.fieldErrors ?? {})).toEqual(["setupCode"]);
        }
      }
      const admins = await harness.database.handle.db.select().from(users).where(eq(users.role, "admin"));
      expect(admins).toEqual([]);
      // The code still works after the wrong ones (they do not spend it).
      await harness.anonymous().auth.setup({ setupCode, name: "root", password: "a-long-password" });
      expect(await harness.anonymous().auth.setupStatus()).toEqual({ needsSetup: false });
    } finally {
      await harness.close();
    }
  });

  test("every instance sharing the database and secret asks for the same code; another secret's code is refused", async () => {
    const first = await startConsole();
    try {
      const second = await startConsole({ setupCodes: createSetupCodes(TEST_SECRET) }, first.database);
      const stranger = createSetupCodes("another-deployment-secret");
      // The second instance asks first here; the first derives the same code from the nonce it stored.
      const fromSecond = await second.setupCode();
      expect(await first.setupCode()).toBe(fromSecond);
      const foreign = (await stranger.current(first.database.handle.db))!;
      expect(foreign).not.toBe(fromSecond);
      expect((await rejection(first.anonymous().auth.setup({ setupCode: foreign, name: "root", password: "a-long-password" }))).code).toBe("FORBIDDEN");
      await first.anonymous().auth.setup({ setupCode: fromSecond!, name: "root", password: "a-long-password" });
      expect(await second.anonymous().auth.setupStatus()).toEqual({ needsSetup: false });
      expect(await second.setupCode()).toBeNull();
    } finally {
      await first.close();
    }
  });

  test("is refused when an admin exists (created by the CLI) and where the server gives no setup codes", async () => {
    const withCodes = await startConsole();
    try {
      const setupCode = (await withCodes.setupCode())!;
      await withCodes.signedInUser({ role: "admin" });
      expect(await withCodes.anonymous().auth.setupStatus()).toEqual({ needsSetup: false });
      expect((await rejection(withCodes.anonymous().auth.setup({ setupCode, name: "second", password: "a-long-password" }))).code).toBe("FORBIDDEN");
    } finally {
      await withCodes.close();
    }
    const withoutCodes = await startConsole({ setupCodes: null });
    try {
      expect(await withoutCodes.anonymous().auth.setupStatus()).toEqual({ needsSetup: false });
      const setupCode = (await createSetupCodes(TEST_SECRET).current(withoutCodes.database.handle.db))!;
      expect((await rejection(withoutCodes.anonymous().auth.setup({ setupCode, name: "first", password: "a-long-password" }))).code).toBe("FORBIDDEN");
    } finally {
      await withoutCodes.close();
    }
  });

  test("an administrator made by the CLI spends the code: it stays refused even if no administrator is left", async () => {
    const harness = await startConsole();
    try {
      const setupCode = (await harness.setupCode())!;
      // What `user create --admin` runs.
      const made = await createUser(harness.database.handle.db, cliOperator, createUserSchema.parse({ name: "cli-admin", role: "admin", password: "a-long-password" }));
      await harness.database.handle.db.delete(users).where(eq(users.id, made.id));
      const refused = await rejection(harness.anonymous().auth.setup({ setupCode, name: "late", password: "a-long-password" }));
      expect(refused.code).toBe("FORBIDDEN");
      expect(refused.message).toContain("No setup code is current");
    } finally {
      await harness.close();
    }
  });

  test("validates the name and password with field errors", async () => {
    const harness = await startConsole();
    try {
      const failure = await rejection(harness.anonymous().auth.setup({ setupCode: "x", name: " ", password: "short" }));
      expect(failure.code).toBe("BAD_REQUEST");
      expect(Object.keys(failure.fieldErrors ?? {}).sort()).toEqual(["name", "password"]);
    } finally {
      await harness.close();
    }
  });
});
