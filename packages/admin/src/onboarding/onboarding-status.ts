import { channels, type Database, modelPrices, requestLogs, tokens, users } from "@tollgate/db";
import { and, count, eq, isNotNull, isNull, ne } from "drizzle-orm";
import { type Actor, isAdministrator, userIdOf } from "../actor";

export type OnboardingStepId = "add-channel" | "test-channel" | "set-prices" | "create-access" | "first-call";

export interface OnboardingStatus {
  /** The steps in the order they can be done, each done once the database says so (not once clicked). */
  steps: { id: OnboardingStepId; done: boolean }[];
  /** Models an enabled channel serves with no price: every call to them is billed at zero. Admins only. */
  unpricedModels: string[];
}

async function exists(query: Promise<{ value: number }[]>): Promise<boolean> {
  const [row] = await query;
  return (row?.value ?? 0) > 0;
}

/**
 * One request-log row (the user's, or anyone's), to tell whether a call was made: a `limit 1` read from an
 * index, never a count over a table of millions of rows.
 */
export function firstCallQuery(db: Database, userId?: number) {
  return db
    .select({ id: requestLogs.id })
    .from(requestLogs)
    .where(userId === undefined ? undefined : eq(requestLogs.userId, userId))
    .limit(1);
}

async function anyCall(db: Database, userId?: number): Promise<boolean> {
  return (await firstCallQuery(db, userId)).length > 0;
}

/**
 * Where a console stands on the way to its first billed call. An administrator sees the whole path (a channel,
 * a successful test, prices, a user or token, a call); a user sees their own part (a token, a call).
 */
export async function onboardingStatus(db: Database, actor: Actor): Promise<OnboardingStatus> {
  if (!isAdministrator(actor)) {
    const userId = userIdOf(actor);
    const ownToken = exists(db.select({ value: count() }).from(tokens).where(eq(tokens.userId, userId)));
    const ownCall = anyCall(db, userId);
    return {
      steps: [
        { id: "create-access", done: await ownToken },
        { id: "first-call", done: await ownCall },
      ],
      unpricedModels: [],
    };
  }
  const channelRows = await db.select({ models: channels.models, status: channels.status }).from(channels);
  const priced = new Set((await db.select({ model: modelPrices.model }).from(modelPrices)).map((row) => row.model));
  const served = new Set(channelRows.filter((channel) => channel.status === "enabled").flatMap((channel) => channel.models));
  const unpricedModels = [...served].filter((model) => !priced.has(model)).sort();
  const [tested, anyToken, anyUser, called] = await Promise.all([
    exists(db.select({ value: count() }).from(channels).where(and(isNotNull(channels.lastTestAt), isNull(channels.lastTestError)))),
    exists(db.select({ value: count() }).from(tokens)),
    exists(db.select({ value: count() }).from(users).where(ne(users.role, "admin"))),
    anyCall(db),
  ]);
  return {
    steps: [
      { id: "add-channel", done: channelRows.length > 0 },
      { id: "test-channel", done: tested },
      { id: "set-prices", done: served.size > 0 && unpricedModels.length === 0 },
      { id: "create-access", done: anyToken || anyUser },
      { id: "first-call", done: called },
    ],
    unpricedModels,
  };
}
