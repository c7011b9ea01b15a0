import {
  addTeamMember,
  addTeamMemberSchema,
  cliOperator,
  createTeam,
  createTeamSchema,
  deleteTeam,
  findTeam,
  findUser,
  getTeam,
  listTeams,
  removeTeamMember,
  type TeamView,
  updateTeam,
  updateTeamSchema,
} from "@tollgate/admin";
import { budgetFields, budgetFlagLabels } from "./budget-flags";
import type { CommandContext, CommandHandler } from "./command-context";
import { CommandError } from "./command-error";
import { integerFromText, limitOrNone, listFromText, listOrNone, parseInput } from "./flag-values";
import { formatFields, formatJson, formatTable, formatUsd } from "./format-output";
import { parseCommandArguments, requireFlag } from "./parse-arguments";
import { displayBudget, ownerJson, ownerLimitFields, ownerLimitsJson } from "./owner-limits";

const teamFlagLabels = {
  ...budgetFlagLabels,
  oidcGroup: "--oidc-group",
  allowedModels: "--models",
  allowedIps: "--ips",
  rpmLimit: "--rpm",
  tpmLimit: "--tpm",
};

/** The flags of a team's settings, on create and update alike. */
const teamFlags = {
  name: "string",
  description: "string",
  "oidc-group": "string",
  budget: "string",
  period: "string",
  "time-zone": "string",
  models: "string",
  ips: "string",
  rpm: "string",
  tpm: "string",
  json: "boolean",
} as const;

function teamJson(team: TeamView) {
  return ownerJson(team, {
    description: team.description,
    oidcGroup: team.oidcGroup,
    status: team.status,
    ...ownerLimitsJson(team),
  });
}

function teamFields(team: TeamView): [string, string][] {
  return [
    ["team", `${team.name} (id ${team.id})`],
    ["status", team.status],
    ["oidc group", team.oidcGroup ?? "none"],
    ["budget", displayBudget(team)],
    ...(team.budgetLimit === null ? [] : budgetFields(team.budget, team.alertThresholds)),
    ...ownerLimitFields(team, "all of the team's tokens"),
  ];
}

async function createTeamCommand(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, {
    command: "team create",
    flags: teamFlags,
  });
  const input = parseInput(
    createTeamSchema,
    {
      name: flags.name,
      description: flags.description,
      oidcGroup: flags["oidc-group"],
      budget: flags.budget,
      budgetPeriod: flags.period,
      budgetTimeZone: flags["time-zone"],
      allowedModels: listFromText(flags.models, "models"),
      allowedIps: listFromText(flags.ips, "ips", "entries"),
      rpmLimit: integerFromText(flags.rpm),
      tpmLimit: integerFromText(flags.tpm),
    },
    teamFlagLabels,
  );
  const created = await createTeam(db, cliOperator, input);
  if (flags.json) return formatJson(teamJson(created));
  return formatFields([["created team", String(created.id)], ...teamFields(created)]);
}

async function updateTeamCommand(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags, positionals } = parseCommandArguments(argv, {
    command: "team update",
    flags: { ...teamFlags, status: "string" },
    positionals: ["NAME_OR_ID"],
  });
  const group = flags["oidc-group"];
  const changes = parseInput(
    updateTeamSchema.omit({ id: true }),
    {
      name: flags.name,
      description: flags.description,
      oidcGroup: group === undefined ? undefined : group.trim().toLowerCase() === "none" ? null : group,
      budget: flags.budget,
      budgetPeriod: flags.period,
      budgetTimeZone: flags["time-zone"],
      allowedModels: listOrNone(flags.models, "models"),
      allowedIps: listOrNone(flags.ips, "ips", "entries"),
      rpmLimit: limitOrNone(flags.rpm),
      tpmLimit: limitOrNone(flags.tpm),
      status: flags.status as "enabled" | "disabled" | undefined,
    },
    teamFlagLabels,
  );
  if (Object.values(changes).every((value) => value === undefined)) throw new CommandError("team update needs at least one flag (run \"help team\")");
  const team = await findTeam(db, positionals[0] as string);
  const updated = await updateTeam(db, cliOperator, { id: team.id, ...changes });
  if (flags.json) return formatJson(teamJson(updated));
  return formatFields(teamFields(updated));
}

async function listTeamsCommand(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, { command: "team list", flags: { json: "boolean" } });
  const rows = await listTeams(db, cliOperator);
  if (flags.json) return formatJson(rows.map((team) => ({ ...teamJson(team), members: team.memberCount, tokens: team.tokenCount })));
  return formatTable(
    ["ID", "NAME", "MEMBERS", "TOKENS", "BUDGET", "SPENT", "OIDC GROUP", "STATUS"],
    rows.map((team) => [
      String(team.id),
      team.name,
      String(team.memberCount),
      String(team.tokenCount),
      displayBudget(team),
      team.budgetLimit === null ? "-" : formatUsd(team.budget.spent),
      team.oidcGroup ?? "-",
      team.status,
    ]),
  );
}

async function showTeamCommand(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags, positionals } = parseCommandArguments(argv, { command: "team show", flags: { json: "boolean" }, positionals: ["NAME_OR_ID"] });
  const found = await findTeam(db, positionals[0] as string);
  const team = await getTeam(db, cliOperator, found.id);
  const members = team.members.map((member) => ({ userId: member.userId, name: member.name, role: member.role, source: member.source }));
  if (flags.json) return formatJson({ ...teamJson(team), members, tokens: team.tokenCount });
  const memberLines = members.length === 0 ? "none" : members.map((member) => `${member.name} (${member.role})`).join(", ");
  return formatFields([...teamFields(team), ["members", memberLines], ["tokens", String(team.tokenCount)]]);
}

async function deleteTeamCommand(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags, positionals } = parseCommandArguments(argv, { command: "team delete", flags: { json: "boolean" }, positionals: ["NAME_OR_ID"] });
  const team = await findTeam(db, positionals[0] as string);
  const deleted = await deleteTeam(db, cliOperator, team.id);
  if (flags.json) return formatJson(deleted);
  return formatFields([["deleted team", `${deleted.name} (id ${deleted.id})`]]);
}

/** `team member add|remove TEAM --user USER [--role team_admin|member]`. */
async function memberCommand(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const [action, ...rest] = argv;
  if (action !== "add" && action !== "remove") throw new CommandError('team member needs "add" or "remove" (run "help team")');
  const { flags, positionals } = parseCommandArguments(rest, {
    command: `team member ${action}`,
    flags: action === "add" ? { user: "string", role: "string", json: "boolean" } : { user: "string", json: "boolean" },
    positionals: ["TEAM"],
  });
  const team = await findTeam(db, positionals[0] as string);
  const user = await findUser(db, requireFlag(flags.user as string | undefined, "user"));
  if (action === "remove") {
    const removed = await removeTeamMember(db, cliOperator, { teamId: team.id, userId: user.id });
    if (flags.json) return formatJson(removed);
    return formatFields([["removed", `${user.name} from ${team.name}`]]);
  }
  const input = parseInput(addTeamMemberSchema, { teamId: team.id, userId: user.id, role: (flags as { role?: string }).role as "team_admin" | "member" | undefined }, { role: "--role" });
  const member = await addTeamMember(db, cliOperator, input);
  if (flags.json) return formatJson(member);
  return formatFields([["team", team.name], ["member", user.name], ["role", member.role]]);
}

export const teamCommands: Record<string, CommandHandler> = {
  create: createTeamCommand,
  update: updateTeamCommand,
  list: listTeamsCommand,
  show: showTeamCommand,
  delete: deleteTeamCommand,
  member: memberCommand,
};
