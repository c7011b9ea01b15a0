import { valueOrNoneSchema } from "./value-schemas";

// Date `2030-01-31`, or date and time with optional seconds, fraction and offset.
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function offsetMinutes(offset: string | undefined): number {
  if (offset === undefined || offset.toUpperCase() === "Z") return 0;
  const sign = offset.startsWith("-") ? -1 : 1;
  const digits = offset.slice(1).replace(":", "");
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  if (hours > 23 || minutes > 59) return Number.NaN;
  return sign * (hours * 60 + minutes);
}

/**
 * Parses a strict ISO 8601 date or date-time. A date alone means midnight UTC, and a time without an
 * offset is UTC too, so the result does not depend on the time zone of the process that runs the command
 * (in embedded mode that is the server). Returns null when the text is not a real calendar instant.
 */
export function parseIsoInstant(value: string): Date | null {
  const match = ISO_8601.exec(value.trim());
  if (!match) return null;
  const [, yearText, monthText, dayText, hourText, minuteText, secondText, fractionText, offset] = match;
  const year = Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  const hour = Number(hourText ?? 0);
  const minute = Number(minuteText ?? 0);
  const second = Number(secondText ?? 0);
  const milliseconds = Number((fractionText ?? "0").padEnd(3, "0").slice(0, 3));
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const shift = offsetMinutes(offset);
  if (Number.isNaN(shift)) return null;
  const epoch = Date.UTC(year, month - 1, day, hour, minute, second, milliseconds) - shift * 60_000;
  return new Date(epoch);
}

const EXPIRY = 'Must be an ISO 8601 date such as 2030-01-31 or 2030-01-31T18:00:00Z, or "never"';

/** A token's expiry: an ISO 8601 instant in the future, or null / "never" for none. */
export const expirySchema = valueOrNoneSchema("never", EXPIRY, parseIsoInstant).refine(
  (instant) => instant === null || instant.getTime() > Date.now(),
  "Must be in the future",
);
