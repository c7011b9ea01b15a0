import { normaliseIpEntry, usdToMicros } from "@tollgate/shared";
import { z } from "zod";

/**
 * Input rules shared by the routers. They mirror the CLI's (apps/cli/src/parse-values.ts) so that a value
 * the CLI accepts, the console accepts too; messages are written for a form field, not a flag.
 */
const MAX_INT32 = 2_147_483_647;
const USD_PATTERN = /^(?:\d+(?:\.\d{0,6})?|\.\d{1,6})$/;

export const recordId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const nameSchema = z
  .string()
  .trim()
  .min(1, "Enter a name")
  .max(200, "At most 200 characters")
  .refine((value) => !/\p{Cc}/u.test(value), "Control characters are not allowed");

export const groupSchema = nameSchema.refine((value) => !value.includes(","), "A single group name, without commas");

export const userNameSchema = nameSchema.refine(
  (value) => !/^\d+$/.test(value),
  "A user name must not be only digits (the CLI would read it as an id)",
);

export const MIN_PASSWORD_LENGTH = 8;
export const passwordSchema = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `At least ${MIN_PASSWORD_LENGTH} characters`)
  .max(1024, "At most 1024 characters");

/** A non-negative USD amount as text ("5", "0.25"), read into integer micro-USD. */
export const usdSchema = z
  .string()
  .trim()
  .regex(USD_PATTERN, "Enter a non-negative amount in USD, such as 5 or 0.25 (at most 6 decimals)")
  .transform((value, context) => {
    try {
      return usdToMicros(value);
    } catch {
      context.addIssue({ code: "custom", message: "The amount is too large" });
      return z.NEVER;
    }
  });

export const positiveUsdSchema = usdSchema.refine((micros) => micros > 0, "Enter an amount greater than zero");

export const positiveIntSchema = z
  .number({ error: "Enter a whole number" })
  .int("Enter a whole number")
  .min(1, "At least 1")
  .max(MAX_INT32, `At most ${MAX_INT32}`);

export const int32Schema = z
  .number({ error: "Enter a whole number" })
  .int("Enter a whole number")
  .min(-MAX_INT32 - 1)
  .max(MAX_INT32);

/** An instant in the future (ISO 8601 with an offset, as `Date.toISOString()` writes it). */
export const futureInstantSchema = z
  .string()
  .trim()
  .pipe(z.iso.datetime({ offset: true, error: "Enter a date and time" }))
  .transform((value) => new Date(value))
  .refine((date) => date.getTime() > Date.now(), "The expiry must be in the future");

/** Model names: trimmed, non-empty, duplicates dropped. */
export const modelListSchema = z
  .array(nameSchema)
  .max(1000)
  .transform((names) => [...new Set(names)]);

/** IP allow-list: each entry an address or CIDR range (v4 or v6), stored normalised, duplicates dropped. */
export const ipAllowListSchema = z
  .array(z.string().trim())
  .max(1000)
  .transform((entries, context) => {
    const normalised: string[] = [];
    for (const entry of entries) {
      if (entry === "") continue;
      const value = normaliseIpEntry(entry);
      if (value === null) {
        context.addIssue({
          code: "custom",
          message: `${JSON.stringify(entry.slice(0, 60))} is not an IP address or CIDR range (v4 or v6)`,
        });
        continue;
      }
      if (!normalised.includes(value)) normalised.push(value);
    }
    return normalised;
  });

/** An http(s) base URL without credentials, query or fragment; trailing slashes dropped. */
export const baseUrlSchema = z
  .string()
  .trim()
  .transform((value, context) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      context.addIssue({ code: "custom", message: "Enter an http:// or https:// URL" });
      return z.NEVER;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      context.addIssue({ code: "custom", message: "Enter an http:// or https:// URL" });
      return z.NEVER;
    }
    if (url.username !== "" || url.password !== "") {
      context.addIssue({ code: "custom", message: "Put the key in the key field, not in the URL" });
      return z.NEVER;
    }
    if (url.search !== "" || url.hash !== "") {
      context.addIssue({ code: "custom", message: "The URL must not have a query or fragment" });
      return z.NEVER;
    }
    return url.toString().replace(/\/+$/, "");
  });
