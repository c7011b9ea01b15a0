import {
  cliOperator,
  createUser,
  createUserSchema,
  deductUserBalance,
  deductUserSchema,
  findUser,
  listUsers,
  topUpUser,
  topUpUserSchema,
  updateUser,
  updateUserSchema,
  type UserView,
} from "@tollgate/admin";
import { budgetFields, budgetFlagLabels, thresholdsFromText } from "./budget-flags";
import type { CommandContext, CommandHandler } from "./command-context";
import { CommandError } from "./command-error";
import { limitOrNone, listOrNone, parseInput } from "./flag-values";
import { formatFields, formatJson, formatUsd, usdForJson } from "./format-output";
import { listCommand } from "./list-command";
import { displayBudget, ownerJson, ownerLimitFields, ownerLimitsJson } from "./owner-limits";
import { parseCommandArguments } from "./parse-arguments";

function userJson(user: UserView) {
  return ownerJson(user, {
    role: user.role,
    group: user.group,
    status: user.status,
    balance: usdForJson(user.balance),
    balanceUnlimited: user.balanceUnlimited,
    ...ownerLimitsJson(user),
    mayCreateTokens: user.mayCreateTokens,
  });
}

function displayBalance(user: UserView): string {
  return user.balanceUnlimited ? "unlimited" : formatUsd(user.balance);
}

async function createUserCommand(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, {
    command: "user create",
    flags: {
      name: "string",
      group: "string",
      balance: "string",
      admin: "boolean",
      password: "string",
      budget: "string",
      period: "string",
      "time-zone": "string",
      "alert-at": "string",
      json: "boolean",
    },
  });
  // The schema's rule, said in the flags the usage names (its own words would be "--password must be set
  // for an administrator").
  if (flags.admin && flags.password === undefined) throw new CommandError("--admin requires --password");
  const input = parseInput(createUserSchema, {
    name: flags.name,
    group: flags.group,
    // Without --balance a user may spend without limit (see createUserSchema).
    balance: flags.balance,
    password: flags.password,
    role: flags.admin ? "admin" : "user",
    budget: flags.budget,
    budgetPeriod: flags.period,
    budgetTimeZone: flags["time-zone"],
    alertThresholds: thresholdsFromText(flags["alert-at"]),
  }, budgetFlagLabels);
  const created = await createUser(db, cliOperator, input);
  if (flags.json) return formatJson(userJson(created));
  return formatFields([
    ["created user", String(created.id)],
    ["name", created.name],
    ["role", created.role],
    ["group", created.group],
    ["balance", displayBalance(created)],
    ["budget", displayBudget(created)],
    ...(created.budgetLimit === null ? [] : budgetFields(created.budget, created.alertThresholds)),
    ["console login", created.hasPassword ? "yes" : "no (no password)"],
  ]);
}

async function budgetUserCommand(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags, positionals } = parseCommandArguments(argv, {
    command: "user budget",
    flags: { budget: "string", period: "string", "time-zone": "string", "alert-at": "string", json: "boolean" },
    positionals: ["NAME_OR_ID"],
  });
  const given = [flags.budget, flags.period, flags["time-zone"], flags["alert-at"]];
  if (given.every((value) => value === undefined)) throw new CommandError("user budget needs --budget, --period, --time-zone or --alert-at");
  const changes = parseInput(
    updateUserSchema.omit({ id: true }),
    { budget: flags.budget, budgetPeriod: flags.period, budgetTimeZone: flags["time-zone"], alertThresholds: thresholdsFromText(flags["alert-at"]) },
    budgetFlagLabels,
  );
  const user = await findUser(db, positionals[0] as string);
  const updated = await updateUser(db, cliOperator, { id: user.id, ...changes });
  if (flags.json) return formatJson(userJson(updated));
  return formatFields([["user", `${updated.name} (id ${updated.id})`], ["budget", displayBudget(updated)], ...budgetFields(updated.budget, updated.alertThresholds)]);
}

function booleanFromText(value: string | undefined, flag: string): boolean | undefined {
  if (value === undefined) return undefined;
  const text = value.trim().toLowerCase();
  if (text === "true" || text === "yes") return true;
  if (text === "false" || text === "no") return false;
  throw new CommandError(`--${flag} must be true or false`);
}

function limitFields(user: UserView): [string, string][] {
  return [
    ...ownerLimitFields(user, "all tokens"),
    ["may create tokens", user.mayCreateTokens ? "yes" : "no"],
  ];
}

/** `user update NAME_OR_ID [--models ...] [--ips ...] [--rpm N] [--tpm N] [--may-create-tokens true|false]`. */
async function updateUserCommand(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags, positionals } = parseCommandArguments(argv, {
    command: "user update",
    flags: { models: "string", ips: "string", rpm: "string", tpm: "string", "may-create-tokens": "string", json: "boolean" },
    positionals: ["NAME_OR_ID"],
  });
  const given = [flags.models, flags.ips, flags.rpm, flags.tpm, flags["may-create-tokens"]];
  if (given.every((value) => value === undefined)) throw new CommandError("user update needs --models, --ips, --rpm, --tpm or --may-create-tokens");
  const changes = parseInput(
    updateUserSchema.omit({ id: true }),
    {
      allowedModels: listOrNone(flags.models, "models"),
      allowedIps: listOrNone(flags.ips, "ips", "entries"),
      rpmLimit: limitOrNone(flags.rpm),
      tpmLimit: limitOrNone(flags.tpm),
      mayCreateTokens: booleanFromText(flags["may-create-tokens"], "may-create-tokens"),
    },
    { allowedModels: "--models", allowedIps: "--ips", rpmLimit: "--rpm", tpmLimit: "--tpm", mayCreateTokens: "--may-create-tokens" },
  );
  const user = await findUser(db, positionals[0] as string);
  const updated = await updateUser(db, cliOperator, { id: user.id, ...changes });
  if (flags.json) return formatJson(userJson(updated));
  return formatFields([["user", `${updated.name} (id ${updated.id})`], ...limitFields(updated)]);
}

const listUsersCommand = listCommand("user list", {
  load: ({ db }) => listUsers(db),
  json: userJson,
  columns: [
    ["ID", (user) => String(user.id)],
    ["NAME", (user) => user.name],
    ["ROLE", (user) => user.role],
    ["GROUP", (user) => user.group],
    ["BALANCE", displayBalance],
    ["BUDGET", displayBudget],
    ["SPENT", (user) => (user.budgetLimit === null ? "-" : formatUsd(user.budget.spent))],
    ["RESETS", (user) => user.budget.resetsAt?.toISOString() ?? "-"],
    ["STATUS", (user) => user.status],
  ],
});

async function topUpUserCommand(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags, positionals } = parseCommandArguments(argv, {
    command: "user topup",
    flags: { amount: "string", reason: "string", json: "boolean" },
    positionals: ["NAME_OR_ID"],
  });
  const { amount, reason } = parseInput(topUpUserSchema.omit({ id: true }), { amount: flags.amount, reason: flags.reason });
  const user = await findUser(db, positionals[0] as string);
  const { user: updated, balanceLogId } = await topUpUser(db, cliOperator, { id: user.id, amount, reason });
  if (flags.json) {
    return formatJson({
      id: updated.id,
      name: updated.name,
      amount: usdForJson(amount),
      balance: usdForJson(updated.balance),
      balanceUnlimited: updated.balanceUnlimited,
      balanceLogId,
    });
  }
  return formatFields([
    ["topped up", `${updated.name} (id ${updated.id})`],
    ["amount", formatUsd(amount)],
    ["balance", `${formatUsd(updated.balance)}${updated.balanceUnlimited ? " (not enforced: balance is unlimited)" : ""}`],
  ]);
}

/** `user deduct NAME_OR_ID --amount USD --reason TEXT [--allow-negative]`: the reason is required. */
async function deductUserCommand(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags, positionals } = parseCommandArguments(argv, {
    command: "user deduct",
    flags: { amount: "string", reason: "string", "allow-negative": "boolean", json: "boolean" },
    positionals: ["NAME_OR_ID"],
  });
  const { amount, reason, allowNegative } = parseInput(deductUserSchema.omit({ id: true }), {
    amount: flags.amount,
    reason: flags.reason,
    allowNegative: flags["allow-negative"] === true,
  });
  const user = await findUser(db, positionals[0] as string);
  const { user: updated, balanceLogId } = await deductUserBalance(db, cliOperator, { id: user.id, amount, reason, allowNegative });
  if (flags.json) {
    return formatJson({ id: updated.id, name: updated.name, amount: usdForJson(-amount), balance: usdForJson(updated.balance), balanceLogId });
  }
  return formatFields([
    ["deducted", `${updated.name} (id ${updated.id})`],
    ["amount", formatUsd(amount)],
    ["balance", formatUsd(updated.balance)],
  ]);
}

export const userCommands: Record<string, CommandHandler> = {
  deduct: deductUserCommand,
  create: createUserCommand,
  list: listUsersCommand,
  topup: topUpUserCommand,
  budget: budgetUserCommand,
  update: updateUserCommand,
};
