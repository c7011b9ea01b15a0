import { usdToMicros } from "@tollgate/shared";
import { CommandError } from "./command-error";

const USD_PATTERN = /^(?:\d+(?:\.(\d*))?|\.(\d+))$/;
const MAX_USD_DECIMALS = 6;
const INTEGER_PATTERN = /^[+-]?\d+$/;
const MAX_INT32 = 2_147_483_647;

/** Parses a USD amount (`12`, `0.5`, `.25`) into micro-USD, or returns null when the text is not one. */
function usdTextToMicros(value: string): number | null {
  const trimmed = value.trim();
  const match = USD_PATTERN.exec(trimmed);
  if (!match) return null;
  const decimals = match[1] ?? match[2] ?? "";
  if (decimals.length > MAX_USD_DECIMALS) return null;
  try {
    return usdToMicros(trimmed);
  } catch {
    return null;
  }
}

/** A non-negative USD amount in micro-USD (prices, balances). */
export function parseUsd(value: string, flag: string): number {
  const micros = usdTextToMicros(value);
  if (micros === null) throw new CommandError(`--${flag} must be a non-negative amount in USD (at most 6 decimals)`);
  return micros;
}

/** A strictly positive USD amount in micro-USD (top-ups). */
export function parsePositiveUsd(value: string, flag: string): number {
  const micros = usdTextToMicros(value);
  if (micros === null || micros === 0) {
    throw new CommandError(`--${flag} must be a positive amount in USD (at most 6 decimals)`);
  }
  return micros;
}

/** A non-negative USD amount in micro-USD, or null for `unlimited`. */
export function parseUsdOrUnlimited(value: string, flag: string): number | null {
  if (value.trim().toLowerCase() === "unlimited") return null;
  const micros = usdTextToMicros(value);
  if (micros === null) throw new CommandError(`--${flag} must be a non-negative amount in USD or "unlimited"`);
  return micros;
}

/** An integer that fits a Postgres `integer` column, within [minimum, MAX_INT32]. */
export function parseInteger(value: string, flag: string, minimum: number): number {
  const trimmed = value.trim();
  const number = INTEGER_PATTERN.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < minimum || number > MAX_INT32) {
    const range =
      minimum === 1 ? "a positive integer" : minimum === 0 ? "a non-negative integer" : "an integer";
    throw new CommandError(`--${flag} must be ${range}${number > MAX_INT32 ? ` up to ${MAX_INT32}` : ""}`);
  }
  return number;
}

/** A row id given as a positional argument (`token show 12`). */
export function parseRecordId(value: string, what: string): number {
  const trimmed = value.trim();
  const number = /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < 1) throw new CommandError(`${what} id must be a positive integer`);
  return number;
}

/** `a,b, c` -> ["a","b","c"]: trimmed, duplicates dropped, empty items refused. */
export function parseNameList(value: string, flag: string): string[] {
  const items = value.split(",").map((item) => item.trim());
  if (items.some((item) => item === "")) {
    throw new CommandError(`--${flag} must be a comma-separated list of non-empty names`);
  }
  return [...new Set(items)];
}

/** A single name (user, token, group): trimmed, non-empty, at most 200 characters, no control characters. */
export function parseName(value: string, flag: string): string {
  const trimmed = value.trim();
  if (trimmed === "" || trimmed.length > 200 || /\p{Cc}/u.test(trimmed)) {
    throw new CommandError(`--${flag} must be a non-empty name of at most 200 characters`);
  }
  return trimmed;
}

/** A routing group name; commas are refused because channel groups are given as a comma-separated list. */
export function parseGroupName(value: string, flag: string): string {
  const group = parseName(value, flag);
  if (group.includes(",")) throw new CommandError(`--${flag} must be a single group name`);
  return group;
}

/** `public=upstream[,public2=upstream2]`; every public name must be one of the channel's models. */
export function parseModelMapping(value: string, flag: string, models: readonly string[]): Record<string, string> {
  const mapping: Record<string, string> = {};
  for (const pair of value.split(",")) {
    const separator = pair.indexOf("=");
    const publicName = separator === -1 ? "" : pair.slice(0, separator).trim();
    const upstreamName = separator === -1 ? "" : pair.slice(separator + 1).trim();
    if (publicName === "" || upstreamName === "") {
      throw new CommandError(`--${flag} must be a comma-separated list of public=upstream model names`);
    }
    if (!models.includes(publicName)) {
      throw new CommandError(`--${flag} maps "${publicName}", which is not one of the channel's --models`);
    }
    if (Object.hasOwn(mapping, publicName)) throw new CommandError(`--${flag} maps "${publicName}" twice`);
    mapping[publicName] = upstreamName;
  }
  return mapping;
}

/**
 * An http(s) base URL without credentials, query or fragment; trailing slashes are dropped so that paths
 * can be appended. The value is never echoed: a URL may carry a key.
 */
export function parseHttpBaseUrl(value: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new CommandError(`--${flag} must be an http:// or https:// URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CommandError(`--${flag} must be an http:// or https:// URL`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new CommandError(`--${flag} must not contain credentials; pass the key with --key`);
  }
  if (url.search !== "" || url.hash !== "") throw new CommandError(`--${flag} must not have a query or fragment`);
  return url.toString().replace(/\/+$/, "");
}
