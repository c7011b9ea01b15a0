import { expect } from "bun:test";
import { balanceLogs, channels, modelPrices, tokens, users } from "@tollgate/db";
import { createSecretBox } from "@tollgate/shared";
import { asc, eq } from "drizzle-orm";
import { type FreshDatabase, freshDatabase } from "../../../test/helpers/fresh-database";
import type { CommandContext, CommandResult } from "./command-context";
import { runCommand } from "./run-command";

/** Creating a fresh database runs initdb (PGlite) or CREATE DATABASE: seconds, once per test file. */
export const DATABASE_SETUP_TIMEOUT_MS = 30_000;

export interface CliHarness {
  database: FreshDatabase;
  context: CommandContext;
  run(...argv: string[]): Promise<CommandResult>;
  /** Runs with --json appended, expects success and returns the parsed output. */
  runJson<T = Record<string, unknown>>(...argv: string[]): Promise<T>;
  /** Runs, expects exit code 2 with one `error:` line naming `expected`, and that nothing was written. */
  expectRejected(argv: string[], expected: string | RegExp): Promise<string>;
  /** Every row the CLI can write, in a stable order. */
  snapshot(): Promise<unknown>;
  /** A token's row as stored. */
  tokenRow(id: number): Promise<typeof tokens.$inferSelect>;
  close(): Promise<void>;
}

export async function createCliHarness(): Promise<CliHarness> {
  const database = await freshDatabase();
  const secretBox = await createSecretBox("a-test-secret-of-enough-length");
  const context: CommandContext = { db: database.handle.db, secretBox };
  const db = database.handle.db;

  const harness: CliHarness = {
    database,
    context,
    run: (...argv) => runCommand(argv, context),
    async runJson<T>(...argv: string[]) {
      const result = await runCommand([...argv, "--json"], context);
      expect(result.stderr).toBe("");
      expect(result.exitCode).toBe(0);
      expect(result.stdout.endsWith("\n")).toBe(true);
      return JSON.parse(result.stdout) as T;
    },
    async expectRejected(argv, expected) {
      const before = await harness.snapshot();
      const result = await runCommand(argv, context);
      expect(result.exitCode).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/^error: [^\n]+\n$/);
      if (typeof expected === "string") expect(result.stderr).toContain(expected);
      else expect(result.stderr).toMatch(expected);
      expect(await harness.snapshot()).toEqual(before);
      return result.stderr;
    },
    async tokenRow(id) {
      const [row] = await db.select().from(tokens).where(eq(tokens.id, id));
      if (!row) throw new Error(`no token ${id}`);
      return row;
    },
    async snapshot() {
      return {
        users: await db.select().from(users).orderBy(asc(users.id)),
        balanceLogs: await db.select().from(balanceLogs).orderBy(asc(balanceLogs.id)),
        tokens: await db.select().from(tokens).orderBy(asc(tokens.id)),
        channels: await db.select().from(channels).orderBy(asc(channels.id)),
        modelPrices: await db.select().from(modelPrices).orderBy(asc(modelPrices.model)),
      };
    },
    close: () => database.drop(),
  };
  return harness;
}
