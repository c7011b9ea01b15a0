import { isAdministrator } from "@tollgate/admin";
import { z } from "zod";
import { logConditions, logFiltersSchema, logRowsQuery } from "../export/log-filters";
import { authedProcedure, router } from "../trpc";

const CURSOR_PATTERN = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)\|(\d{1,18})$/;

const listInput = logFiltersSchema.extend({
  /** Opaque: the nextCursor of the previous page. */
  cursor: z.string().regex(CURSOR_PATTERN, "Invalid cursor").nullish(),
  limit: z.number().int().min(1).max(200).default(50),
});

export const logsRouter = router({
  /** Request log, newest first, keyset-paginated on (created_at, id). Users see only their own calls. */
  list: authedProcedure.input(listInput).query(async ({ ctx, input }) => {
    const admin = isAdministrator(ctx.user);
    const conditions = logConditions(ctx.user, input);
    const cursor = input.cursor ? CURSOR_PATTERN.exec(input.cursor) : null;
    const after = cursor ? { at: cursor[1]!, id: Number(cursor[2]) } : null;
    const rows = await logRowsQuery(ctx.db, conditions, "newest", after, input.limit + 1);
    const page = rows.slice(0, input.limit);
    const last = page[page.length - 1];
    const items = page.map(({ cursorAt: _cursor, ...row }) =>
      // Channels are the operator's business: users see which model answered, not which upstream.
      admin ? row : { ...row, channelId: null, channelName: null, upstreamModel: null },
    );
    return { items, nextCursor: rows.length > input.limit && last ? `${last.cursorAt}|${last.id}` : null };
  }),
});
