import { type BudgetPeriod, canonicalTimeZone, isBudgetPeriod } from "@tollgate/shared";
import { z } from "zod";
import { requiredOr } from "./value-schemas";

const PERIOD_MESSAGE = 'Must be "none", "daily", "weekly" or "monthly"';

/**
 * How often a budget starts again: none (a lifetime total), daily, weekly (from Monday), monthly. Takes any
 * text (as a flag or a form gives it) and refuses what is not a period with one message.
 */
export const budgetPeriodSchema = z
  .string({ error: requiredOr(PERIOD_MESSAGE) })
  .transform((text) => text.trim().toLowerCase())
  .refine(isBudgetPeriod, PERIOD_MESSAGE)
  .transform((text) => text as BudgetPeriod);

const TIME_ZONE_MESSAGE = 'Must be an IANA time zone, such as "UTC" or "Europe/Paris"';

/** An IANA time zone, stored as Intl spells it (`utc` -> `UTC`). */
export const timeZoneSchema = z.string({ error: requiredOr(TIME_ZONE_MESSAGE) }).transform((text, context) => {
  const zone = canonicalTimeZone(text);
  if (zone === null) {
    context.addIssue({ code: "custom", message: TIME_ZONE_MESSAGE });
    return z.NEVER;
  }
  return zone;
});

const THRESHOLDS_MESSAGE = "Must be a list of percentages from 1 to 1000 (at most 10)";

/** Spend-alert thresholds in percent of a budget, sorted, duplicates dropped; empty turns alerts off. */
export const alertThresholdsSchema = z
  .array(z.number({ error: THRESHOLDS_MESSAGE }).int(THRESHOLDS_MESSAGE).min(1, THRESHOLDS_MESSAGE).max(1000, THRESHOLDS_MESSAGE), {
    error: requiredOr(THRESHOLDS_MESSAGE),
  })
  .max(10, THRESHOLDS_MESSAGE)
  .transform((levels) => [...new Set(levels)].sort((a, b) => a - b));
