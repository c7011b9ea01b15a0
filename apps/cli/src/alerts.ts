import { alertSettingsSchema, type AlertSettingsView, cliOperator, getAlertSettings, listAlertsSchema, listSpendAlerts, setAlertSettings } from "@tollgate/admin";
import type { CommandContext, CommandHandler } from "./command-context";
import { thresholdsFromText } from "./budget-flags";
import { integerFromText, parseInput } from "./flag-values";
import { formatDate, formatFields, formatJson, formatTable, formatUsd, usdForJson } from "./format-output";
import { parseCommandArguments } from "./parse-arguments";

const alertFlags = { webhookUrl: "--webhook-url", webhookSecret: "--webhook-secret", thresholds: "--thresholds" };

function settingsFields(view: AlertSettingsView): [string, string][] {
  return [
    ["webhook url", view.webhookUrl === "" ? "none (alerts are console notices only)" : view.webhookUrl],
    ["webhook secret", view.webhookSecretMasked ?? "none (deliveries are unsigned)"],
    ["thresholds", view.thresholds.length === 0 ? "none" : view.thresholds.map((level) => `${level}%`).join(", ")],
  ];
}

async function alertSettingsCommand(argv: readonly string[], context: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, {
    command: "alerts settings",
    flags: { "webhook-url": "string", "webhook-secret": "string", thresholds: "string", json: "boolean" },
  });
  const thresholds = thresholdsFromText(flags.thresholds);
  const input = parseInput(
    alertSettingsSchema,
    { webhookUrl: flags["webhook-url"], webhookSecret: flags["webhook-secret"], thresholds: thresholds === null ? undefined : thresholds },
    alertFlags,
  );
  const changed = Object.values(input).some((value) => value !== undefined);
  const view = changed ? await setAlertSettings(context.db, context.secretBox, cliOperator, input, context.addressPolicy) : await getAlertSettings(context.db, context.secretBox);
  if (flags.json) return formatJson(view);
  return formatFields(settingsFields(view));
}

async function listAlertsCommand(argv: readonly string[], context: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, { command: "alerts list", flags: { limit: "string", json: "boolean" } });
  const { limit } = parseInput(listAlertsSchema, { limit: integerFromText(flags.limit) }, { limit: "--limit" });
  const rows = await listSpendAlerts(context.db, cliOperator, { limit });
  const delivery = (row: (typeof rows)[number]) =>
    row.deliveredAt ? `delivered ${row.deliveredAt.toISOString()}` : row.nextAttemptAt ? `pending (attempt ${row.attempts + 1})` : row.attempts > 0 ? "gave up" : "not sent (no webhook)";
  if (flags.json) {
    return formatJson(
      rows.map((row) => ({
        id: row.id,
        subject: row.subjectKind,
        tokenId: row.tokenId,
        tokenName: row.tokenName,
        userId: row.userId,
        userName: row.userName,
        teamId: row.teamId,
        teamName: row.teamName,
        period: row.period,
        periodStart: row.period === "none" ? null : row.periodStart.toISOString(),
        periodEnd: row.periodEnd?.toISOString() ?? null,
        threshold: row.threshold,
        spent: usdForJson(row.spent),
        limit: usdForJson(row.limit),
        createdAt: row.createdAt.toISOString(),
        deliveredAt: row.deliveredAt?.toISOString() ?? null,
        attempts: row.attempts,
        lastError: row.lastError,
      })),
    );
  }
  return formatTable(
    ["ID", "WHEN", "SUBJECT", "PERIOD", "THRESHOLD", "SPENT", "LIMIT", "DELIVERY"],
    rows.map((row) => [
      String(row.id),
      row.createdAt.toISOString(),
      row.subjectKind === "token" ? `token ${row.tokenName} (${row.userName})` : row.subjectKind === "team" ? `team ${row.teamName}` : `user ${row.userName}`,
      row.period === "none" ? "lifetime" : `${row.period} to ${formatDate(row.periodEnd, "-")}`,
      `${row.threshold}%`,
      formatUsd(row.spent),
      formatUsd(row.limit),
      delivery(row),
    ]),
  );
}

export const alertCommands: Record<string, CommandHandler> = {
  settings: alertSettingsCommand,
  list: listAlertsCommand,
};
