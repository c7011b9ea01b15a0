import { z } from "zod";
import { nameSchema, recordIdSchema } from "../values/value-schemas";

export const createApiKeySchema = z.object({
  name: nameSchema,
  /** `read`: GET requests only; `write`: every request. */
  scope: z.enum(["read", "write"], { error: 'Must be "read" or "write"' }).default("read"),
  /** Limits the key to one team (wired when teams are merged); omitted: every object. */
  teamId: recordIdSchema.nullable().optional(),
});

export type CreateApiKeyInput = z.output<typeof createApiKeySchema>;
