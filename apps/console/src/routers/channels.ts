import { channels, channelTypes } from "@tollgate/db";
import { asc, eq } from "drizzle-orm";
import { z } from "zod";
import { notFound } from "../errors";
import { maskKey } from "../mask-key";
import { adminProcedure, type ConsoleContext, router } from "../trpc";
import { baseUrlSchema, groupSchema, int32Schema, modelListSchema, nameSchema, positiveIntSchema, recordId } from "../validation";

/** Every column but the encrypted key, which is read only to show it masked. */
const channelColumns = {
  id: channels.id,
  name: channels.name,
  type: channels.type,
  baseUrl: channels.baseUrl,
  apiKeyEncrypted: channels.apiKeyEncrypted,
  models: channels.models,
  modelMapping: channels.modelMapping,
  groups: channels.groups,
  priority: channels.priority,
  weight: channels.weight,
  status: channels.status,
  statusReason: channels.statusReason,
  lastTestAt: channels.lastTestAt,
  lastTestLatencyMs: channels.lastTestLatencyMs,
  lastTestError: channels.lastTestError,
  createdAt: channels.createdAt,
  updatedAt: channels.updatedAt,
};

type ChannelRow = { [K in keyof typeof channelColumns]: (typeof channels.$inferSelect)[K] };

async function toView(ctx: ConsoleContext, row: ChannelRow) {
  const { apiKeyEncrypted, ...view } = row;
  let keyMasked: string | null = null;
  try {
    keyMasked = maskKey(await ctx.secretBox.decrypt(apiKeyEncrypted));
  } catch {
    // Encrypted with another TOLLGATE_SECRET: the list still shows the channel, with no key.
  }
  return { ...view, keyMasked };
}

const apiKeySchema = z
  .string()
  .trim()
  .min(1, "Enter the upstream API key")
  .max(4096)
  .refine((value) => !/\s/.test(value), "The key must not contain whitespace");

const channelFields = z.object({
  name: nameSchema,
  type: z.enum(channelTypes),
  baseUrl: baseUrlSchema,
  models: modelListSchema.refine((models) => models.length > 0, "List at least one model"),
  /** Public model id -> upstream model id. */
  modelMapping: z.record(z.string().trim().min(1), z.string().trim().min(1, "Enter the upstream model name")),
  groups: z
    .array(groupSchema)
    .transform((groups) => [...new Set(groups)])
    .refine((groups) => groups.length > 0, "List at least one group"),
  priority: int32Schema,
  weight: positiveIntSchema,
  status: z.enum(["enabled", "disabled"]),
});

/** Mapped names must be among the channel's models. */
function checkMapping(value: { models?: string[]; modelMapping?: Record<string, string> }, context: z.RefinementCtx) {
  if (!value.modelMapping || !value.models) return;
  for (const publicName of Object.keys(value.modelMapping)) {
    if (!value.models.includes(publicName)) {
      context.addIssue({ code: "custom", path: ["modelMapping"], message: `"${publicName}" is not one of the channel's models` });
    }
  }
}

const createInput = channelFields
  .partial({ type: true, modelMapping: true, groups: true, priority: true, weight: true, status: true })
  .extend({ apiKey: apiKeySchema })
  .superRefine(checkMapping);

const updateInput = channelFields
  .partial()
  .extend({
    id: recordId,
    /** Omitted or empty: keep the stored key. */
    apiKey: apiKeySchema.optional().or(z.literal("").transform(() => undefined)),
  })
  .superRefine(checkMapping);

async function loadChannel(ctx: ConsoleContext, id: number) {
  const [row] = await ctx.db.select(channelColumns).from(channels).where(eq(channels.id, id)).limit(1);
  if (!row) throw notFound("Channel");
  return row;
}

export const channelsRouter = router({
  list: adminProcedure.query(async ({ ctx }) => {
    const rows = await ctx.db.select(channelColumns).from(channels).orderBy(asc(channels.id));
    return Promise.all(rows.map((row) => toView(ctx, row)));
  }),

  byId: adminProcedure.input(z.object({ id: recordId })).query(async ({ ctx, input }) => toView(ctx, await loadChannel(ctx, input.id))),

  create: adminProcedure.input(createInput).mutation(async ({ ctx, input }) => {
    const { apiKey, ...fields } = input;
    const [created] = await ctx.db
      .insert(channels)
      .values({ ...fields, apiKeyEncrypted: await ctx.secretBox.encrypt(apiKey) })
      .returning({ id: channels.id });
    if (!created) throw new Error("the new channel was not returned");
    return toView(ctx, await loadChannel(ctx, created.id));
  }),

  update: adminProcedure.input(updateInput).mutation(async ({ ctx, input }) => {
    const { id, apiKey, ...fields } = input;
    const current = await loadChannel(ctx, id);
    // A mapping must stay within the models, whichever of the two changed.
    const models = fields.models ?? current.models;
    const mapping = fields.modelMapping ?? current.modelMapping;
    const modelMapping = Object.fromEntries(Object.entries(mapping).filter(([publicName]) => models.includes(publicName)));
    await ctx.db
      .update(channels)
      .set({
        ...fields,
        modelMapping,
        ...(apiKey === undefined ? {} : { apiKeyEncrypted: await ctx.secretBox.encrypt(apiKey) }),
        // Enabling by hand clears the gateway's reason for an automatic disable.
        ...(fields.status === undefined ? {} : { statusReason: null }),
        updatedAt: new Date(),
      })
      .where(eq(channels.id, id));
    return toView(ctx, await loadChannel(ctx, id));
  }),

  delete: adminProcedure.input(z.object({ id: recordId })).mutation(async ({ ctx, input }) => {
    const [deleted] = await ctx.db.delete(channels).where(eq(channels.id, input.id)).returning({ id: channels.id });
    if (!deleted) throw notFound("Channel");
    return { id: deleted.id };
  }),

  /** Sends a tiny real request through the channel and stores the outcome on it. */
  test: adminProcedure.input(z.object({ id: recordId })).mutation(async ({ ctx, input }) => {
    await loadChannel(ctx, input.id);
    const result = await ctx.testChannel(input.id);
    await ctx.db
      .update(channels)
      .set({
        lastTestAt: new Date(),
        lastTestLatencyMs: result.latencyMs,
        lastTestError: result.ok ? null : (result.error ?? "failed"),
      })
      .where(eq(channels.id, input.id));
    return { ok: result.ok, latencyMs: result.latencyMs, error: result.ok ? null : (result.error ?? "failed") };
  }),
});
