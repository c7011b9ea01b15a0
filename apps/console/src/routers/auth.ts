import { users } from "@tollgate/db";
import { TRPCError } from "@trpc/server";
import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import { fieldError } from "../errors";
import { clearedSessionCookie, createSession, deleteSession, sessionCookie } from "../auth/sessions";
import { authedProcedure, publicProcedure, router } from "../trpc";
import { passwordSchema, userNameSchema } from "../validation";

/** Any advisory-lock id will do; it only serialises concurrent first-run setups. */
const SETUP_LOCK_ID = 7_201_912;

// A real argon2id hash of a random password: failed look-ups cost as much as failed passwords, so timing
// does not tell which user names exist.
const dummyHash = Bun.password.hash(crypto.randomUUID(), { algorithm: "argon2id" });

async function adminExists(db: Parameters<typeof createSession>[0]): Promise<boolean> {
  const [row] = await db.select({ id: users.id }).from(users).where(eq(users.role, "admin")).limit(1);
  return row !== undefined;
}

function waitText(milliseconds: number): string {
  if (milliseconds < 60_000) {
    const seconds = Math.max(1, Math.ceil(milliseconds / 1000));
    return `${seconds} second${seconds === 1 ? "" : "s"}`;
  }
  const count = Math.ceil(milliseconds / 60_000);
  return `${count} minute${count === 1 ? "" : "s"}`;
}

export const authRouter = router({
  /** Whether the first-run setup page applies: embedded mode and no administrator yet. */
  setupStatus: publicProcedure.query(async ({ ctx }) => ({
    needsSetup: ctx.embedded && !(await adminExists(ctx.db)),
  })),

  /** Creates the first administrator and signs them in; refused once any administrator exists. */
  setup: publicProcedure
    .input(z.object({ name: userNameSchema, password: passwordSchema }))
    .mutation(async ({ ctx, input }) => {
      if (!ctx.embedded) {
        throw new TRPCError({ code: "FORBIDDEN", message: "Create the first administrator with the CLI: user create --admin" });
      }
      const passwordHash = await Bun.password.hash(input.password, { algorithm: "argon2id" });
      const created = await ctx.db.transaction(async (transaction) => {
        await transaction.execute(sql`select pg_advisory_xact_lock(${SETUP_LOCK_ID})`);
        const [admin] = await transaction.select({ id: users.id }).from(users).where(eq(users.role, "admin")).limit(1);
        if (admin) return null;
        const [taken] = await transaction.select({ id: users.id }).from(users).where(eq(users.name, input.name)).limit(1);
        if (taken) throw fieldError("name", "A user with this name exists already; choose another name");
        const [row] = await transaction
          .insert(users)
          .values({ name: input.name, passwordHash, role: "admin", balanceUnlimited: true })
          .returning({ id: users.id });
        return row ?? null;
      });
      if (!created) throw new TRPCError({ code: "FORBIDDEN", message: "Setup is done: an administrator already exists" });
      const secret = await createSession(ctx.db, created.id, ctx.sessionTtlMs);
      ctx.responseHeaders.append("set-cookie", sessionCookie(secret, { maxAgeMs: ctx.sessionTtlMs, secure: ctx.secure }));
      ctx.log("info", "first administrator created", { userId: created.id });
      return { ok: true as const };
    }),

  login: publicProcedure
    .input(z.object({ name: z.string().trim().min(1, "Enter your user name").max(200), password: z.string().min(1, "Enter your password").max(1024) }))
    .mutation(async ({ ctx, input }) => {
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
    return { ok: true as const };
  }),

  /** The signed-in user with their balance. */
  me: authedProcedure.query(async ({ ctx }) => {
    const [row] = await ctx.db
      .select({
        id: users.id,
        name: users.name,
        role: users.role,
        group: users.group,
        balance: users.balance,
        balanceUnlimited: users.balanceUnlimited,
      })
      .from(users)
      .where(eq(users.id, ctx.user.id))
      .limit(1);
    if (!row) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue" });
    return row;
  }),
});
