import { upstreamAddressRefusal, usdToMicros } from "@tollgate/shared";
import { z } from "zod";

/**
 * The rules for single values that the console's forms and the CLI's flags share, so that a value one
 * front accepts the other accepts too, and a refusal reads the same on both.
 *
 * A message reads on from the name of its field: the console shows it under the field ("Must be a positive
 * integer"), the CLI after the flag (`--rpm must be a positive integer`). A message that begins with the
 * offending value in quotes stands on its own (`"1.2.3" is not an IP address ...`; the CLI puts it after
 * `--ip:`).
 */
const MAX_INT32 = 2_147_483_647;
const MIN_INT32 = -MAX_INT32 - 1;
const USD_PATTERN = /^(?:\d+(?:\.\d{0,6})?|\.\d{1,6})$/;

/** The message of a value of the wrong type, or `Is required` when it is absent. */
export function requiredOr(message: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? "Is required" : message);
}

const POSITIVE_INTEGER = "Must be a positive integer";

/** A row id: a positive integer that JavaScript holds exactly. */
export const recordIdSchema = z
  .number({ error: requiredOr(POSITIVE_INTEGER) })
  .refine((value) => Number.isSafeInteger(value) && value >= 1, POSITIVE_INTEGER);

/** A name (user, token, channel, group, model): trimmed, non-empty, at most 200 characters, no control characters. */
export const nameSchema = z
  .string({ error: requiredOr("Must be text") })
  .trim()
  .min(1, "Must not be empty")
  .max(200, "Must be at most 200 characters")
  .refine((value) => !/\p{Cc}/u.test(value), "Must not contain control characters");

/** A routing group; commas are refused because the CLI takes a channel's groups as a comma-separated list. */
export const groupSchema = nameSchema.refine((value) => !value.includes(","), "Must be a single group name");

/** Digits alone are refused: the CLI reads `NAME_OR_ID` made of digits as an id. */
export const userNameSchema = nameSchema.refine((value) => !/^\d+$/.test(value), "Must not be only digits (it would read as a user id)");

export const MIN_PASSWORD_LENGTH = 8;
export const passwordSchema = z
  .string({ error: requiredOr("Must be text") })
  .min(MIN_PASSWORD_LENGTH, `Must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(1024, "Must be at most 1024 characters");

/** A non-negative USD amount as text ("5", "0.25", ".5", "3."), in micro-USD; null when it is not one. */
function microsFromUsdText(text: string): number | null {
  const trimmed = text.trim();
  if (!USD_PATTERN.test(trimmed)) return null;
  try {
    return usdToMicros(trimmed);
  } catch {
    return null;
  }
}

function usdAmountSchema(message: string, accept: (micros: number) => boolean) {
  return z.string({ error: requiredOr(message) }).transform((text, context) => {
    const micros = microsFromUsdText(text);
    if (micros === null || !accept(micros)) {
      context.addIssue({ code: "custom", message });
      return z.NEVER;
    }
    return micros;
  });
}

/** A non-negative USD amount as text, read into integer micro-USD (prices). */
export const usdSchema = usdAmountSchema("Must be a non-negative amount in USD (at most 6 decimals)", () => true);

/** A USD amount above zero (top-ups). */
export const positiveUsdSchema = usdAmountSchema("Must be a positive amount in USD (at most 6 decimals)", (micros) => micros > 0);

const USD_OR_UNLIMITED = 'Must be a non-negative amount in USD or "unlimited"';

/**
 * Text that `read` turns into a value (null when it cannot: refused with `message`), or null or the word
 * `none` (any case) for no value at all.
 */
export function valueOrNoneSchema<Value>(none: string, message: string, read: (text: string) => Value | null) {
  return z
    .string({ error: requiredOr(message) })
    .nullable()
    .transform((text, context) => {
      if (text === null || text.trim().toLowerCase() === none) return null;
      const value = read(text);
      if (value === null) {
        context.addIssue({ code: "custom", message });
        return z.NEVER;
      }
      return value;
    });
}

/** A spending limit (a token's quota, a user's balance): a USD amount, or null / "unlimited" for none. */
export const usdLimitSchema = valueOrNoneSchema("unlimited", USD_OR_UNLIMITED, microsFromUsdText);

/** A positive integer that fits a Postgres `integer` (weights, per-minute limits, timeouts). */
export const positiveIntSchema = z
  .number({ error: requiredOr(POSITIVE_INTEGER) })
  .refine((value) => Number.isInteger(value) && value >= 1, POSITIVE_INTEGER)
  .refine((value) => value <= MAX_INT32, `Must be a positive integer up to ${MAX_INT32}`);

/** Any integer that fits a Postgres `integer` (priorities). */
export const int32Schema = z
  .number({ error: requiredOr("Must be an integer") })
  .refine((value) => Number.isInteger(value), "Must be an integer")
  .refine((value) => value >= MIN_INT32 && value <= MAX_INT32, `Must be an integer from ${MIN_INT32} to ${MAX_INT32}`);

/** Model names: each a name, duplicates dropped. */
export const modelListSchema = z
  .array(nameSchema, { error: requiredOr("Must be a list of model names") })
  .max(1000, "Must list at most 1000 models")
  .transform((names) => [...new Set(names)]);

/** An http(s) base URL without credentials, query or fragment; trailing slashes dropped so that paths can be appended. */
export const baseUrlSchema = z.string({ error: requiredOr("Must be an http:// or https:// URL") }).transform((text, context) => {
  const refuse = (message: string) => {
    context.addIssue({ code: "custom", message });
    return z.NEVER;
  };
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    // The value itself is never echoed: a URL may carry a key.
    return refuse("Must be an http:// or https:// URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return refuse("Must be an http:// or https:// URL");
  if (url.username !== "" || url.password !== "") return refuse("Must not contain credentials (the key is given on its own)");
  if (url.search !== "" || url.hash !== "") return refuse("Must not have a query or fragment");
  // Metadata and link-local hosts are refused whatever the policy; the private-network switch is applied by the operation.
  const addressRefusal = upstreamAddressRefusal(url);
  if (addressRefusal !== null) return refuse(addressRefusal);
  return url.toString().replace(/\/+$/, "");
});

/**
 * A key's text; what it must look like is its channel type's (see channelKeyProblem). Whitespace inside a
 * key is only ever a copy-and-paste mistake, so it is refused here, with the field's other errors, unless the
 * text is a structured credential's JSON (a Bedrock access key, a Vertex service-account key), which the
 * type then checks.
 */
const apiKeyTextSchema = z
  .string({ error: requiredOr("Must be text") })
  .trim()
  .max(8192, "Must be at most 8192 characters")
  .refine((value) => value.startsWith("{") || !/\s/.test(value), "Must not contain whitespace");

/** An upstream API key (or a structured credential's JSON text, for the types that take one). */
export const apiKeySchema = apiKeyTextSchema.refine((value) => value !== "", "Must not be empty");

/** A replacement key on an update: omitted or empty keeps the stored one. */
export const optionalApiKeySchema = apiKeyTextSchema.optional().transform((value) => value || undefined);

/** The input of a procedure that names one row. */
export const idInputSchema = z.object({ id: recordIdSchema });
