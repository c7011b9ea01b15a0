import {
  addTeamMember,
  addTeamMemberSchema,
  type Actor,
  type ChannelProber,
  createChannel,
  createChannelSchema,
  createToken,
  createTokenSchema,
  createUser,
  createUserSchema,
  deleteChannel,
  deletePrice,
  deleteToken,
  deleteUser,
  getChannel,
  getPrice,
  getToken,
  getUser,
  listAudit,
  listAuditSchema,
  listChannels,
  listModels,
  listTokens,
  listUsers,
  MAX_PAGE_SIZE,
  rollToken,
  rollTokenSchema,
  setPrice,
  setPriceSchema,
  topUpUser,
  topUpUserSchema,
  updateChannel,
  updateChannelSchema,
  updateToken,
  updateTokenSchema,
  updateUser,
  updateUserSchema,
  usageReport,
  usageReportSchema,
  createTeam,
  createTeamSchema,
  deleteTeam,
  getTeam,
  listTeams,
  removeTeamMember,
  removeTeamMemberSchema,
  updateTeam,
  updateTeamSchema,
} from "@tollgate/admin";
import type { Database } from "@tollgate/db";
import type { SecretBox, UpstreamAddressPolicy } from "@tollgate/shared";
import { z } from "zod";
import { ApiError } from "./api-error";
import { auditRowView, channelView, modelView, pageOf, priceView, teamMemberView, teamView, tokenView, usageRowView, userView } from "./api-views";

export interface ApiRouteContext {
  db: Database;
  secretBox: SecretBox;
  /** The API key's actor: an administrator with no account, named by the key in the audit log. */
  actor: Actor;
  addressPolicy: UpstreamAddressPolicy;
  testChannel: ChannelProber;
}

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

/**
 * One operation of the management API: its path (`{name}` parameters are fields of the input), the admin
 * schema that reads its input (the query string for GET, the JSON body otherwise, path parameters merged
 * in), the shape of its answer (for the OpenAPI document), and the admin operation it calls. Adding a
 * resource (teams, at merge) is rows of this table.
 */
export interface ApiRoute {
  method: HttpMethod;
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  input?: z.ZodType;
  response: z.ZodType;
  /** 201 for a create; default 200. */
  status?: 200 | 201;
  /** A create: an `Idempotency-Key` header makes a retry replay the first answer. */
  create?: boolean;
  /**
   * Open to a key limited to a team, which acts there as the team's admin (the admin operation scopes it to
   * its team's objects); every other route refuses such a key.
   */
  teamScoped?: boolean;
  run(context: ApiRouteContext, input: unknown): Promise<unknown>;
}

function route<Input extends z.ZodType>(definition: Omit<ApiRoute, "run" | "input"> & { input?: Input; run(context: ApiRouteContext, input: z.output<Input>): Promise<unknown> }): ApiRoute {
  return definition as ApiRoute;
}

/** Cursor paging of a list: `cursor` is the last id (or name) of the previous page. */
const listQuery = z.object({
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
});

const idPath = z.object({ id: z.coerce.number().pipe(z.number().int().min(1)) });
const modelPath = z.object({ model: z.string().min(1).max(200) });

/**
 * The page after `cursor` of rows kept in order by `key` (ids ascending, model names sorted): these tables
 * hold thousands of rows at most, and a key cursor, unlike an offset, skips nothing when rows are added.
 */
function pageAfter<Row>(rows: Row[], key: (row: Row) => string | number, input: z.output<typeof listQuery>) {
  if (rows.length === 0) return { data: [], nextCursor: null };
  let start = 0;
  if (input.cursor !== undefined) {
    const cursor: string | number = typeof key(rows[0] as Row) === "number" ? Number(input.cursor) : input.cursor;
    if (typeof cursor === "number" && !Number.isSafeInteger(cursor)) throw new ApiError(400, "invalid_input", "Invalid cursor", { cursor: ["Invalid cursor"] });
    start = rows.findIndex((row) => key(row) > cursor);
    if (start === -1) start = rows.length;
  }
  const data = rows.slice(start, start + input.limit);
  const last = data[data.length - 1];
  return { data, nextCursor: start + input.limit < rows.length && last !== undefined ? String(key(last)) : null };
}

const id = z.number().int();
const deleted = z.object({ id, deleted: z.literal(true) });

/** What one standard row of a resource says of itself: its summary, and whether a key limited to a team may call it. */
interface StandardRow {
  summary: string;
  teamScoped?: boolean;
}

/**
 * The five standard rows of a resource kept by id, in this order: list (paged by id), create, get, update
 * and delete, at `/{tag}` and `/{tag}/{id}`, with the operation ids `list{Name}s`, `create{Name}`,
 * `get{Name}`, `update{Name}` and `delete{Name}`. What differs between resources is their summaries, the rows
 * a team-limited key may call, and the admin operations the rows call.
 */
function standardRoutes<
  CreateInput extends z.ZodType,
  UpdateInput extends z.ZodType,
  ListInput extends z.ZodType<z.output<typeof listQuery>>,
>(resource: {
  tag: string;
  name: string;
  view: z.ZodType;
  list: StandardRow & { input: ListInput; rows(context: ApiRouteContext, input: z.output<ListInput>): Promise<{ id: number }[]> };
  /** `response`: the answer when it is more than the view (a token's key, shown once). */
  create: StandardRow & { input: CreateInput; response?: z.ZodType; run(context: ApiRouteContext, input: z.output<CreateInput>): Promise<unknown> };
  get: StandardRow & { run(context: ApiRouteContext, id: number): Promise<unknown> };
  update: StandardRow & { input: UpdateInput; run(context: ApiRouteContext, input: z.output<UpdateInput>): Promise<unknown> };
  /** Answers the deleted row, whose id the route answers with `deleted: true`. */
  delete: StandardRow & { run(context: ApiRouteContext, id: number): Promise<{ id: number }> };
}): ApiRoute[] {
  const { tag, name, view, list, create, get, update, delete: remove } = resource;
  const path = `/${tag}`;
  const byId = `${path}/{id}`;
  return [
    route({
      method: "GET", path, operationId: `list${name}s`, teamScoped: list.teamScoped, summary: list.summary, tag, input: list.input, response: pageOf(view),
      run: async (context, input) => pageAfter(await list.rows(context, input), (row) => row.id, input),
    }),
    route({
      method: "POST", path, operationId: `create${name}`, teamScoped: create.teamScoped, summary: create.summary, tag, input: create.input, response: create.response ?? view, status: 201, create: true,
      run: create.run,
    }),
    route({ method: "GET", path: byId, operationId: `get${name}`, teamScoped: get.teamScoped, summary: get.summary, tag, input: idPath, response: view, run: (context, input) => get.run(context, input.id) }),
    route({ method: "PATCH", path: byId, operationId: `update${name}`, teamScoped: update.teamScoped, summary: update.summary, tag, input: update.input, response: view, run: update.run }),
    route({
      method: "DELETE", path: byId, operationId: `delete${name}`, teamScoped: remove.teamScoped, summary: remove.summary, tag, input: idPath, response: deleted,
      run: async (context, input) => ({ id: (await remove.run(context, input.id)).id, deleted: true }),
    }),
  ];
}

export const API_ROUTES: ApiRoute[] = [
  ...standardRoutes({
    tag: "users",
    name: "User",
    view: userView,
    list: { summary: "List users, by id", input: listQuery, rows: ({ db }) => listUsers(db) },
    create: { summary: "Create a user", input: createUserSchema, run: ({ db, actor }, input) => createUser(db, actor, input) },
    get: { summary: "Get a user", run: ({ db }, id) => getUser(db, id) },
    update: { summary: "Change a user", input: updateUserSchema, run: ({ db, actor }, input) => updateUser(db, actor, input) },
    delete: { summary: "Delete a user", run: ({ db, actor }, id) => deleteUser(db, actor, id) },
  }),
  route({
    method: "POST", path: "/users/{id}/top-up", operationId: "topUpUser", summary: "Add to a user's balance", tag: "users", input: topUpUserSchema, response: userView,
    run: async ({ db, actor }, input) => (await topUpUser(db, actor, input)).user,
  }),

  ...standardRoutes({
    tag: "teams",
    name: "Team",
    view: teamView,
    list: { summary: "List teams, by id", teamScoped: true, input: listQuery, rows: ({ db, actor }) => listTeams(db, actor) },
    create: { summary: "Create a team", input: createTeamSchema, run: ({ db, actor }, input) => createTeam(db, actor, input) },
    get: { summary: "Get a team, with its members", teamScoped: true, run: ({ db, actor }, id) => getTeam(db, actor, id) },
    update: { summary: "Change a team's name, status, budget or limits", input: updateTeamSchema, run: ({ db, actor }, input) => updateTeam(db, actor, input) },
    delete: { summary: "Delete a team (refused while it has tokens)", run: ({ db, actor }, id) => deleteTeam(db, actor, id) },
  }),
  route({
    method: "GET", path: "/teams/{teamId}/members", operationId: "listTeamMembers", teamScoped: true, summary: "List a team's members, by user id", tag: "teams", input: listQuery.extend({ teamId: idPath.shape.id }),
    response: pageOf(teamMemberView),
    run: async ({ db, actor }, input) => pageAfter((await getTeam(db, actor, input.teamId)).members.sort((left, right) => left.userId - right.userId), (member) => member.userId, input),
  }),
  route({
    method: "POST", path: "/teams/{teamId}/members", operationId: "addTeamMember", teamScoped: true, summary: "Add a user to a team, or change their role there", tag: "teams", input: addTeamMemberSchema,
    response: z.object({ teamId: id, userId: id, role: z.enum(["team_admin", "member"]) }), status: 201,
    run: ({ db, actor }, input) => addTeamMember(db, actor, input),
  }),
  route({
    method: "DELETE", path: "/teams/{teamId}/members/{userId}", operationId: "removeTeamMember", teamScoped: true, summary: "Remove a user from a team", tag: "teams", input: removeTeamMemberSchema,
    response: z.object({ teamId: id, userId: id, deleted: z.literal(true) }),
    run: async ({ db, actor }, input) => ({ ...(await removeTeamMember(db, actor, input)), deleted: true as const }),
  }),


  ...standardRoutes({
    tag: "tokens",
    name: "Token",
    view: tokenView,
    list: {
      summary: "List tokens, by id", teamScoped: true, input: listQuery.extend({ userId: z.coerce.number().int().min(1).optional() }),
      rows: ({ db, actor }, input) => listTokens(db, actor, { userId: input.userId }),
    },
    create: {
      summary: "Create a token (its key is in the answer, once)", teamScoped: true, input: createTokenSchema, response: z.object({ token: tokenView, secret: z.string() }),
      run: ({ db, actor }, input) => createToken(db, actor, input),
    },
    get: { summary: "Get a token", teamScoped: true, run: ({ db, actor }, id) => getToken(db, actor, id) },
    update: { summary: "Change a token's limits or status", teamScoped: true, input: updateTokenSchema, run: ({ db, actor }, input) => updateToken(db, actor, input) },
    delete: { summary: "Delete a token", teamScoped: true, run: ({ db, actor }, id) => deleteToken(db, actor, id) },
  }),
  route({
    method: "POST", path: "/tokens/{id}/roll", operationId: "rollToken", teamScoped: true, summary: "Give a token a new key (in the answer, once)", tag: "tokens", input: rollTokenSchema,
    response: z.object({ token: tokenView, secret: z.string() }),
    run: ({ db, actor }, input) => rollToken(db, actor, input),
  }),

  ...standardRoutes({
    tag: "channels",
    name: "Channel",
    view: channelView,
    list: { summary: "List channels, by id (keys masked)", input: listQuery, rows: ({ db, secretBox }) => listChannels(db, secretBox) },
    create: {
      summary: "Create a channel", input: createChannelSchema,
      run: ({ db, secretBox, actor, addressPolicy }, input) => createChannel(db, secretBox, actor, input, addressPolicy),
    },
    get: { summary: "Get a channel (key masked)", run: ({ db, secretBox }, id) => getChannel(db, secretBox, id) },
    update: {
      summary: "Change a channel", input: updateChannelSchema,
      run: ({ db, secretBox, actor, addressPolicy }, input) => updateChannel(db, secretBox, actor, input, addressPolicy),
    },
    delete: { summary: "Delete a channel", run: ({ db, actor }, id) => deleteChannel(db, actor, id) },
  }),

  route({
    method: "GET", path: "/models", operationId: "listModels", summary: "List models (served or priced), by name, with prices", tag: "models", input: listQuery, response: pageOf(modelView),
    run: async ({ db }, input) => pageAfter(await listModels(db), (listing) => listing.model, input),
  }),
  route({
    method: "GET", path: "/models/{model}/price", operationId: "getPrice", summary: "Get a model's price (null: free)", tag: "models", input: modelPath,
    response: z.object({ model: z.string(), price: priceView.nullable() }), run: ({ db }, input) => getPrice(db, input.model),
  }),
  route({
    method: "PUT", path: "/models/{model}/price", operationId: "setPrice", summary: "Set a model's whole price", tag: "models", input: setPriceSchema, response: priceView,
    run: ({ db, actor }, input) => setPrice(db, actor, input),
  }),
  route({
    method: "DELETE", path: "/models/{model}/price", operationId: "deletePrice", summary: "Remove a model's price", tag: "models", input: modelPath, response: z.object({ model: z.string() }),
    run: ({ db, actor }, input) => deletePrice(db, actor, input.model),
  }),

  route({
    method: "GET", path: "/usage", operationId: "getUsage", teamScoped: true, summary: "Requests, tokens and spend per UTC day and model", tag: "usage", input: usageReportSchema,
    response: z.object({ data: z.array(usageRowView) }), run: async ({ db, actor }, input) => ({ data: await usageReport(db, actor, input) }),
  }),

  route({
    method: "GET", path: "/audit", operationId: "listAudit", summary: "The audit log, newest first, filtered", tag: "audit", input: listAuditSchema, response: pageOf(auditRowView),
    run: async ({ db, actor }, input) => {
      const page = await listAudit(db, actor, input);
      return { data: page.items, nextCursor: page.nextCursor };
    },
  }),
];
