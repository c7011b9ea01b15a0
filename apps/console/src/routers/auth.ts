import { AdminError, createFirstAdministrator, firstAdministratorSchema, getUser, hasAdministrator } from "@tollgate/admin";
import { users } from "@tollgate/db";
import { TRPCError } from "@trpc/server";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { clearedOidcHintCookie, OIDC_LOGIN_PATH, OIDC_LOGOUT_PATH } from "../auth/oidc-sign-in";
import { clearedSessionCookie, createSession, deleteSession, sessionCookie } from "../auth/sessions";
import { authedProcedure, publicProcedure, router } from "../trpc";

// A real argon2id hash of a random password: failed look-ups cost as much as failed passwords, so timing
// does not tell which user names exist.
const dummyHash = Bun.password.hash(crypto.randomUUID(), { algorithm: "argon2id" });

function waitText(milliseconds: number): string {
  if (milliseconds < 60_000) {
    const seconds = Math.max(1, Math.ceil(milliseconds / 1000));
    return `${seconds} second${seconds === 1 ? "" : "s"}`;
  }
  const count = Math.ceil(milliseconds / 60_000);
  return `${count} minute${count === 1 ? "" : "s"}`;
}

export const authRouter = router({
  /** Whether the first-run setup page applies: setup codes given (the server) and no administrator yet. */
  setupStatus: publicProcedure.query(async ({ ctx }) => ({
    needsSetup: ctx.setupCodes !== null && !(await hasAdministrator(ctx.db)),
  })),

  /**
   * Creates the first administrator and signs them in, given the setup code the server printed at start
   * (from any address: the code, not the network, is what proves the caller is the operator); refused once
   * any administrator exists.
   */
  setup: publicProcedure.input(firstAdministratorSchema).mutation(async ({ ctx, input }) => {
    if (!ctx.setupCodes) {
      throw new TRPCError({ code: "FORBIDDEN", message: "Create the first administrator with the CLI: user create --admin" });
    }
    const created = await createFirstAdministrator(ctx.db, input, ctx.setupCodes, { address: ctx.clientIp });
    if (!created) throw new TRPCError({ code: "FORBIDDEN", message: "Setup is done: an administrator already exists" });
    ctx.setupCodes.spent();
    const secret = await createSession(ctx.db, created.id, ctx.sessionTtlMs);
    ctx.responseHeaders.append("set-cookie", sessionCookie(secret, { maxAgeMs: ctx.sessionTtlMs, secure: ctx.secure }));
    ctx.log("info", "first administrator created", { userId: created.id });
    return { ok: true as const };
  }),

  /**
   * How the sign-in page offers to sign in: single sign-on (its button's name), passwords, or both; and where
   * the console's page POSTs to sign out when the identity provider's session is to end too (null: the
   * logout procedure).
   */
  signInOptions: publicProcedure.query(({ ctx }) => ({
    oidc: ctx.oidc ? { name: ctx.oidc.displayName, path: OIDC_LOGIN_PATH, logoutPath: ctx.oidc.providerLogout ? OIDC_LOGOUT_PATH : null } : null,
    password: !ctx.oidc?.only,
  })),

  login: publicProcedure
    .input(z.object({ name: z.string().trim().min(1, "Enter your user name").max(200), password: z.string().min(1, "Enter your password").max(1024) }))
    .mutation(async ({ ctx, input }) => {
      if (ctx.oidc?.only) {
        throw new TRPCError({ code: "FORBIDDEN", message: `Password sign-in is turned off: sign in with ${ctx.oidc.displayName}` });
      }
      // Counted before the slow hash, so that concurrent guesses cannot all be checked (see the limiter).
      const admission = ctx.loginLimiter.admit(input.name, ctx.clientIp);
      if (!admission.admitted) {
        ctx.responseHeaders.set("retry-after", String(Math.ceil(admission.retryAfterMs / 1000)));
        throw new TRPCError({
          code: "TOO_MANY_REQUESTS",
          message: `Too many failed sign-in attempts. Try again in ${waitText(admission.retryAfterMs)}.`,
        });
      }
      const [user] = await ctx.db
        .select({ id: users.id, passwordHash: users.passwordHash, status: users.status })
        .from(users)
        .where(eq(users.name, input.name))
        .limit(1);
      const hash = user?.passwordHash ?? (await dummyHash);
      const matches = await Bun.password.verify(input.password, hash);
      if (!user || !user.passwordHash || !matches || user.status !== "enabled") {
        throw new TRPCError({ code: "UNAUTHORIZED", message: "Wrong user name or password, or the account is disabled" });
      }
      admission.succeeded();
      const secret = await createSession(ctx.db, user.id, ctx.sessionTtlMs);
      ctx.responseHeaders.append("set-cookie", sessionCookie(secret, { maxAgeMs: ctx.sessionTtlMs, secure: ctx.secure }));
      return { ok: true as const };
    }),

  logout: publicProcedure.mutation(async ({ ctx }) => {
    if (ctx.sessionSecret) await deleteSession(ctx.db, ctx.sessionSecret);
    ctx.responseHeaders.append("set-cookie", clearedSessionCookie(ctx.secure));
    // An SSO session's sign-out hint goes with it (the page signs out through POST /auth/oidc/logout then).
    if (ctx.oidc?.providerLogout) ctx.responseHeaders.append("set-cookie", clearedOidcHintCookie(ctx.secure));
    return { ok: true as const };
  }),

  /** The signed-in user with their balance. */
  me: authedProcedure.query(async ({ ctx }) => {
    try {
      const { id, name, role, group, balance, balanceUnlimited } = await getUser(ctx.db, ctx.user.id);
      return { id, name, role, group, balance, balanceUnlimited };
    } catch (error) {
      // Deleted since the session was checked.
      if (error instanceof AdminError && error.code === "not_found") throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue" });
      throw error;
    }
  }),
});
