import { normaliseIpEntry } from "@tollgate/shared";
import { z } from "zod";
import { requiredOr } from "./value-schemas";

/**
 * An IP allow-list: each entry an address or CIDR range (v4 or v6), stored normalised, duplicates
 * dropped. Blank entries are skipped (a form's empty lines); every bad entry is named, at most 60
 * characters of it.
 */
export const ipAllowListSchema = z
  .array(z.string({ error: "Must be text" }).trim(), { error: requiredOr("Must be a list of IP addresses or CIDR ranges") })
  .max(1000, "Must list at most 1000 entries")
  .transform((entries, context) => {
    const normalised: string[] = [];
    for (const entry of entries) {
      if (entry === "") continue;
      const value = normaliseIpEntry(entry);
      if (value === null) {
        context.addIssue({ code: "custom", message: `${JSON.stringify(entry.slice(0, 60))} is not an IP address or CIDR range (v4 or v6)` });
        continue;
      }
      if (!normalised.includes(value)) normalised.push(value);
    }
    return normalised;
  });
