import { expect } from "bun:test";
import { runCommand } from "@tollgate/cli/run-command";
import { createSetupCodes, type SetupCodes } from "../../packages/admin/src/index";
import { users } from "@tollgate/db";
import { createChannelProber } from "@tollgate/upstream";
import { createSecretBox } from "@tollgate/shared";
import { type CallerOptions, createConsole, type ConsoleDependencies } from "../../apps/console/src/create-console";
import { freshDatabase, type FreshDatabase } from "../helpers/fresh-database";
import { TEST_SECRET } from "../helpers/gateway-fixture";

export const PASSWORD = "correct horse battery";

export interface ConsoleUnderTest {
  database: FreshDatabase;
  console: ReturnType<typeof createConsole>;
  /** The setup codes the console checks (derived from the suite's secret, as the server derives its own). */
  setupCodes: SetupCodes;
  /** The current setup code, as the server prints it at start (null once an administrator exists). */
  setupCode(): Promise<string | null>;
  /** Creates a user who can sign in; returns its id and a caller signed in as it. */
  signedInUser(values?: { name?: string; role?: "admin" | "user"; group?: string }): Promise<{ id: number; name: string; caller: ReturnType<ReturnType<typeof createConsole>["createCaller"]>; cookie: string }>;
  /** Signs in through auth.login; returns the session cookie ("tollgate_session=..."). */
  login(name: string, password?: string, options?: CallerOptions): Promise<string>;
  anonymous(options?: CallerOptions): ReturnType<ReturnType<typeof createConsole>["createCaller"]>;
  close(): Promise<void>;
}

/** A user `signedInUser` created: its id and name, and a console caller signed in as it. */
export type SignedInUser = Awaited<ReturnType<ConsoleUnderTest["signedInUser"]>>;

let passwordHashOnce: Promise<string> | undefined;

/**
 * PASSWORD's argon2id hash for the users the fixture creates, made once per test process and with light
 * parameters (4 MiB, one pass): a sign-in verifies it as the console verifies any hash (Bun.password reads
 * the parameters from the hash), in milliseconds where production's parameters take 0.15-0.4 s a sign-in on
 * this machine (0.45 s a hash), over some 90 sign-ins in the suite. Users the console or the CLI create
 * get production's parameters.
 */
function passwordHashOfPassword(): Promise<string> {
  passwordHashOnce ??= Bun.password.hash(PASSWORD, { algorithm: "argon2id", memoryCost: 4096, timeCost: 1 });
  return passwordHashOnce;
}

/**
 * A console around a fresh, migrated database (PGlite, or Postgres when DATABASE_URL is set), or around
 * `shared`, a database a test also gives a gateway or the CLI: closing the console then leaves it open.
 */
export async function startConsole(overrides: Partial<ConsoleDependencies> = {}, shared?: FreshDatabase): Promise<ConsoleUnderTest> {
  const database = shared ?? (await freshDatabase());
  const secretBox = await createSecretBox(TEST_SECRET);
  // The gateway's prober, as the composition root passes it: a channel test exercises what production runs.
  const testChannel = createChannelProber();
  const setupCodes = createSetupCodes(TEST_SECRET);
  const consoleApp = createConsole({ database: database.handle, secretBox, setupCodes, testChannel, ...overrides });
  const passwordHash = await passwordHashOfPassword();

  const login = async (name: string, password = PASSWORD, options: CallerOptions = {}) => {
    const responseHeaders = new Headers();
    await consoleApp.createCaller({ ...options, responseHeaders }).auth.login({ name, password });
    const cookie = responseHeaders.get("set-cookie") ?? "";
    return cookie.split(";")[0] ?? "";
  };

  return {
    database,
    console: consoleApp,
    setupCodes,
    setupCode: () => setupCodes.current(database.handle.db),
    login,
    anonymous: (options = {}) => consoleApp.createCaller(options),
    async signedInUser(values = {}) {
      const name = values.name ?? `user-${crypto.randomUUID().slice(0, 8)}`;
      const [row] = await database.handle.db
        .insert(users)
        .values({ name, passwordHash, role: values.role ?? "user", group: values.group ?? "default", balanceUnlimited: true })
        .returning({ id: users.id });
      const cookie = await login(name);
      return { id: row!.id, name, cookie, caller: consoleApp.createCaller({ headers: { cookie } }) };
    },
    close: async () => {
      if (!shared) await database.drop();
    },
  };
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string; fieldErrors: Record<string, string[]> | null }> {
  try {
    await promise;
  } catch (error) {
    const trpcError = error as { code: string; message: string; cause?: unknown };
    const cause = trpcError.cause as { issues?: { path: PropertyKey[]; message: string }[]; fieldErrors?: Record<string, string[]> } | undefined;
    let fieldErrors: Record<string, string[]> | null = null;
    if (cause?.issues) {
      fieldErrors = {};
      for (const issue of cause.issues) {
        const field = String(issue.path[0] ?? "");
        (fieldErrors[field] ??= []).push(issue.message);
      }
    } else if (cause?.fieldErrors) {
      fieldErrors = cause.fieldErrors;
    }
    return { code: trpcError.code, message: trpcError.message, fieldErrors };
  }
  throw new Error("expected the call to fail, but it succeeded");
}

/** The console's refusal of one field: its code and that field's messages. */
export async function fieldRefusal(call: () => Promise<unknown>, field: string): Promise<{ code: string; messages: string[] | undefined }> {
  const failure = await rejection(call());
  return { code: failure.code, messages: failure.fieldErrors?.[field] };
}

/** The CLI on a test's database, as an operator runs it there: argv in, its exit code and output out. */
export type Cli = (...argv: string[]) => ReturnType<typeof runCommand>;
/** The CLI asked for `--json`: its answer, parsed. */
export type JsonCli = (...argv: string[]) => Promise<Record<string, unknown>>;

export async function cliOn(database: FreshDatabase): Promise<Cli> {
  const context = { db: database.handle.db, secretBox: await createSecretBox(TEST_SECRET) };
  return (...argv) => runCommand(argv, context);
}

/** The CLI asked for `--json`, which must print nothing on stderr. */
export async function jsonCliOn(database: FreshDatabase): Promise<JsonCli> {
  const cli = await cliOn(database);
  return async (...argv) => {
    const result = await cli(...argv, "--json");
    expect(result.stderr).toBe("");
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };
}
