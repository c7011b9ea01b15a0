import { balanceLogs, users } from "@tollgate/db";
import { asc, eq, sql } from "drizzle-orm";
import type { CommandContext, CommandHandler } from "./command-context";
import { CommandError } from "./command-error";
import { isUniqueViolation } from "./database-errors";
import { findUser, type UserRow } from "./find-user";
import { formatFields, formatJson, formatTable, formatUsd, usdForJson } from "./format-output";
import { parseCommandArguments, requireFlag } from "./parse-arguments";
import { parseGroupName, parseName, parsePositiveUsd, parseUsdOrUnlimited } from "./parse-values";

const MIN_PASSWORD_LENGTH = 8;

function parseUserName(value: string): string {
  const name = parseName(value, "name");
  if (/^\d+$/.test(name)) throw new CommandError("--name must not be only digits (it would read as a user id)");
  return name;
}

function userJson(user: UserRow) {
  return {
    id: user.id,
    name: user.name,
    role: user.role,
    group: user.group,
    status: user.status,
    balance: usdForJson(user.balance),
    balanceUnlimited: user.balanceUnlimited,
    createdAt: user.createdAt.toISOString(),
  };
}

function displayBalance(user: UserRow): string {
  return user.balanceUnlimited ? "unlimited" : formatUsd(user.balance);
}

async function createUser(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, {
    command: "user create",
    flags: { name: "string", group: "string", balance: "string", admin: "boolean", password: "string", json: "boolean" },
  });
  const name = parseUserName(requireFlag(flags.name, "name"));
  const group = flags.group === undefined ? "default" : parseGroupName(flags.group, "group");
  // Without --balance a user may spend without limit: on a self-hosted gateway spending is usually capped
  // per token (--quota), and a prepaid balance is opt-in.
  const balance = flags.balance === undefined ? null : parseUsdOrUnlimited(flags.balance, "balance");
  if (flags.admin && flags.password === undefined) throw new CommandError("--admin requires --password");
  if (flags.password !== undefined && flags.password.length < MIN_PASSWORD_LENGTH) {
    throw new CommandError(`--password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  const [existing] = await db.select({ id: users.id }).from(users).where(eq(users.name, name)).limit(1);
  if (existing) throw new CommandError(`user ${JSON.stringify(name)} already exists`);

  const passwordHash =
    flags.password === undefined ? null : await Bun.password.hash(flags.password, { algorithm: "argon2id" });
  let created: UserRow | undefined;
  try {
    [created] = await db
      .insert(users)
      .values({
        name,
        group,
        passwordHash,
        role: flags.admin ? "admin" : "user",
        balance: balance ?? 0,
        balanceUnlimited: balance === null,
      })
      .returning();
  } catch (error) {
    if (isUniqueViolation(error)) throw new CommandError(`user ${JSON.stringify(name)} already exists`);
    throw error;
  }
  if (!created) throw new Error("the new user was not returned");
  if (flags.json) return formatJson(userJson(created));
  return formatFields([
    ["created user", String(created.id)],
    ["name", created.name],
    ["role", created.role],
    ["group", created.group],
    ["balance", displayBalance(created)],
    ["console login", created.passwordHash ? "yes" : "no (no password)"],
  ]);
}

async function listUsers(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, { command: "user list", flags: { json: "boolean" } });
  const rows = await db.select().from(users).orderBy(asc(users.id));
  if (flags.json) return formatJson(rows.map(userJson));
  return formatTable(
    ["ID", "NAME", "ROLE", "GROUP", "BALANCE", "STATUS"],
    rows.map((user) => [String(user.id), user.name, user.role, user.group, displayBalance(user), user.status]),
  );
}

async function topUpUser(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags, positionals } = parseCommandArguments(argv, {
    command: "user topup",
    flags: { amount: "string", reason: "string", json: "boolean" },
    positionals: ["NAME_OR_ID"],
  });
  const amount = parsePositiveUsd(requireFlag(flags.amount, "amount"), "amount");
  const reason = flags.reason === undefined ? "top-up" : flags.reason.trim();
  const user = await findUser(db, positionals[0] as string);

  const { balance, balanceLogId } = await db.transaction(async (transaction) => {
    const [updated] = await transaction
      .update(users)
      .set({ balance: sql`${users.balance} + ${amount}`, updatedAt: new Date() })
      .where(eq(users.id, user.id))
      .returning({ balance: users.balance });
    if (!updated) throw new CommandError(`unknown user ${JSON.stringify(user.name)}`);
    const [log] = await transaction
      .insert(balanceLogs)
      .values({ userId: user.id, amount, reason })
      .returning({ id: balanceLogs.id });
    if (!log) throw new Error("the balance log row was not returned");
    return { balance: updated.balance, balanceLogId: log.id };
  });

  if (flags.json) {
    return formatJson({
      id: user.id,
      name: user.name,
      amount: usdForJson(amount),
      balance: usdForJson(balance),
      balanceUnlimited: user.balanceUnlimited,
      balanceLogId,
    });
  }
  return formatFields([
    ["topped up", `${user.name} (id ${user.id})`],
    ["amount", formatUsd(amount)],
    ["balance", `${formatUsd(balance)}${user.balanceUnlimited ? " (not enforced: balance is unlimited)" : ""}`],
  ]);
}

export const userCommands: Record<string, CommandHandler> = {
  create: createUser,
  list: listUsers,
  topup: topUpUser,
};
