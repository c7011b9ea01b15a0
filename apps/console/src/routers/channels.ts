import {
  channelHealth,
  createChannel,
  createChannelSchema,
  deleteChannel,
  fetchChannelModels,
  fetchChannelModelsSchema,
  getChannel,
  idInputSchema,
  listChannelPresets,
  listChannelTypes,
  listChannels,
  testChannel,
  updateChannel,
  updateChannelSchema,
} from "@tollgate/admin";
import { adminProcedure, router } from "../trpc";

/** Upstream channels; keys go in encrypted and come out masked (packages/admin channels). */
export const channelsRouter = router({
  list: adminProcedure.query(({ ctx }) => listChannels(ctx.db, ctx.secretBox)),

  byId: adminProcedure.input(idInputSchema).query(({ ctx, input }) => getChannel(ctx.db, ctx.secretBox, input.id)),

  create: adminProcedure.input(createChannelSchema).mutation(({ ctx, input }) => createChannel(ctx.db, ctx.secretBox, ctx.user, input, ctx.addressPolicy)),

  update: adminProcedure.input(updateChannelSchema).mutation(({ ctx, input }) => updateChannel(ctx.db, ctx.secretBox, ctx.user, input, ctx.addressPolicy)),

  delete: adminProcedure.input(idInputSchema).mutation(async ({ ctx, input }) => ({ id: (await deleteChannel(ctx.db, ctx.user, input.id)).id })),

  /** The vendor presets the form offers, each with its type (the CLI's --preset list). */
  presets: adminProcedure.query(() => listChannelPresets()),

  /** The channel types and the settings each takes (the adapters' descriptors), for the form's type list and fields. */
  types: adminProcedure.query(() => listChannelTypes()),

  /** Requests and errors per channel over the last 24 hours, from the hourly rollup. */
  health: adminProcedure.query(({ ctx }) => channelHealth(ctx.db)),

  /**
   * The models the upstream serves, by its own list call, for a saved channel (`id`) or a form's unsaved
   * values (the key typed in the form). Administrators only: it spends the channel's key.
   */
  fetchModels: adminProcedure.input(fetchChannelModelsSchema).mutation(({ ctx, input }) => fetchChannelModels(ctx.db, ctx.secretBox, input, ctx.addressPolicy)),

  /** Sends a tiny real request through the channel (the gateway's prober) and stores the outcome on it. */
  test: adminProcedure.input(idInputSchema).mutation(({ ctx, input }) => testChannel(ctx.db, ctx.secretBox, ctx.user, input.id, ctx.testChannel)),
});
