import { upstreamAddressRefusal } from "@tollgate/shared";
import { z } from "zod";
import { alertThresholdsSchema } from "../values/budget-schemas";
import { requiredOr } from "../values/value-schemas";

const URL_MESSAGE = "Must be an http:// or https:// URL, or empty to turn the webhook off";

/** The webhook's address: http(s), no credentials in it; empty or null turns deliveries off. */
const webhookUrlSchema = z
  .string({ error: requiredOr(URL_MESSAGE) })
  .nullable()
  .transform((text, context) => {
    const trimmed = (text ?? "").trim();
    if (trimmed === "") return "";
    let url: URL;
    try {
      url = new URL(trimmed);
    } catch {
      context.addIssue({ code: "custom", message: URL_MESSAGE });
      return z.NEVER;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      context.addIssue({ code: "custom", message: URL_MESSAGE });
      return z.NEVER;
    }
    if (url.username !== "" || url.password !== "") {
      context.addIssue({ code: "custom", message: "Must not contain credentials (the signing secret proves the sender)" });
      return z.NEVER;
    }
    const addressRefusal = upstreamAddressRefusal(url);
    if (addressRefusal !== null) {
      context.addIssue({ code: "custom", message: addressRefusal });
      return z.NEVER;
    }
    return url.toString();
  });

const SECRET_MESSAGE = "Must be 16 to 256 characters without whitespace, or empty to send unsigned";

/** The HMAC secret; empty removes it (deliveries are then unsigned). Never shown back. */
const webhookSecretSchema = z
  .string({ error: requiredOr(SECRET_MESSAGE) })
  .refine((value) => value === "" || (value.length >= 16 && value.length <= 256 && !/\s/.test(value)), SECRET_MESSAGE);

/** A change of the spend-alert settings: each field omitted is left as it is. */
export const alertSettingsSchema = z.object({
  webhookUrl: webhookUrlSchema.optional(),
  webhookSecret: webhookSecretSchema.optional(),
  /** Default thresholds (percent) for tokens and users that set none; empty: no alerts unless they set some. */
  thresholds: alertThresholdsSchema.optional(),
});

export type AlertSettingsInput = z.output<typeof alertSettingsSchema>;

const LIMIT_MESSAGE = "Must be a whole number from 1 to 200";

export const listAlertsSchema = z.object({
  /** Most recent first; at most 200. */
  limit: z
    .number({ error: LIMIT_MESSAGE })
    .int(LIMIT_MESSAGE)
    .min(1, LIMIT_MESSAGE)
    .max(200, LIMIT_MESSAGE)
    .default(50),
});
