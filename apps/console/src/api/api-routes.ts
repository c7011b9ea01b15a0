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

export const API_ROUTES: ApiRoute[] = [
  route({
    method: "GET", path: "/users", operationId: "listUsers", summary: "List users, by id", tag: "users", input: listQuery, response: pageOf(userView),
    run: async ({ db }, input) => pageAfter(await listUsers(db), (user) => user.id, input),
  }),
  route({
    method: "POST", path: "/users", operationId: "createUser", summary: "Create a user", tag: "users", input: createUserSchema, response: userView, status: 201, create: true,
    run: ({ db, actor }, input) => createUser(db, actor, input),
  }),
  route({ method: "GET", path: "/users/{id}", operationId: "getUser", summary: "Get a user", tag: "users", input: idPath, response: userView, run: ({ db }, input) => getUser(db, input.id) }),
  route({
    method: "PATCH", path: "/users/{id}", operationId: "updateUser", summary: "Change a user", tag: "users", input: updateUserSchema, response: userView,
    run: ({ db, actor }, input) => updateUser(db, actor, input),
  }),
  route({
    method: "DELETE", path: "/users/{id}", operationId: "deleteUser", summary: "Delete a user", tag: "users", input: idPath, response: deleted,
    run: async ({ db, actor }, input) => ({ id: (await deleteUser(db, actor, input.id)).id, deleted: true }),
  }),
  route({
    method: "POST", path: "/users/{id}/top-up", operationId: "topUpUser", summary: "Add to a user's balance", tag: "users", input: topUpUserSchema, response: userView,
    run: async ({ db, actor }, input) => (await topUpUser(db, actor, input)).user,
  }),

  route({
    method: "GET", path: "/teams", operationId: "listTeams", teamScoped: true, summary: "List teams, by id", tag: "teams", input: listQuery, response: pageOf(teamView),
    run: async ({ db, actor }, input) => pageAfter(await listTeams(db, actor), (team) => team.id, input),
  }),
  route({
    method: "POST", path: "/teams", operationId: "createTeam", summary: "Create a team", tag: "teams", input: createTeamSchema, response: teamView, status: 201, create: true,
    run: ({ db, actor }, input) => createTeam(db, actor, input),
  }),
  route({
    method: "GET", path: "/teams/{id}", operationId: "getTeam", teamScoped: true, summary: "Get a team, with its members", tag: "teams", input: idPath, response: teamView,
    run: ({ db, actor }, input) => getTeam(db, actor, input.id),
  }),
  route({
    method: "PATCH", path: "/teams/{id}", operationId: "updateTeam", summary: "Change a team's name, status, budget or limits", tag: "teams", input: updateTeamSchema, response: teamView,
    run: ({ db, actor }, input) => updateTeam(db, actor, input),
  }),
  route({
    method: "DELETE", path: "/teams/{id}", operationId: "deleteTeam", summary: "Delete a team (refused while it has tokens)", tag: "teams", input: idPath, response: deleted,
    run: async ({ db, actor }, input) => ({ id: (await deleteTeam(db, actor, input.id)).id, deleted: true }),
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

  route({
    method: "GET", path: "/tokens", operationId: "listTokens", teamScoped: true, summary: "List tokens, by id", tag: "tokens",
    input: listQuery.extend({ userId: z.coerce.number().int().min(1).optional() }), response: pageOf(tokenView),
    run: async ({ db, actor }, input) => pageAfter(await listTokens(db, actor, { userId: input.userId }), (token) => token.id, input),
  }),
  route({
    method: "POST", path: "/tokens", operationId: "createToken", teamScoped: true, summary: "Create a token (its key is in the answer, once)", tag: "tokens", input: createTokenSchema,
    response: z.object({ token: tokenView, secret: z.string() }), status: 201, create: true,
    run: ({ db, actor }, input) => createToken(db, actor, input),
  }),
  route({ method: "GET", path: "/tokens/{id}", operationId: "getToken", teamScoped: true, summary: "Get a token", tag: "tokens", input: idPath, response: tokenView, run: ({ db, actor }, input) => getToken(db, actor, input.id) }),
  route({
    method: "PATCH", path: "/tokens/{id}", operationId: "updateToken", teamScoped: true, summary: "Change a token's limits or status", tag: "tokens", input: updateTokenSchema, response: tokenView,
    run: ({ db, actor }, input) => updateToken(db, actor, input),
  }),
  route({
    method: "DELETE", path: "/tokens/{id}", operationId: "deleteToken", teamScoped: true, summary: "Delete a token", tag: "tokens", input: idPath, response: deleted,
    run: async ({ db, actor }, input) => ({ id: (await deleteToken(db, actor, input.id)).id, deleted: true }),
  }),
  route({
    method: "POST", path: "/tokens/{id}/roll", operationId: "rollToken", teamScoped: true, summary: "Give a token a new key (in the answer, once)", tag: "tokens", input: rollTokenSchema,
    response: z.object({ token: tokenView, secret: z.string() }),
    run: ({ db, actor }, input) => rollToken(db, actor, input),
  }),

  route({
    method: "GET", path: "/channels", operationId: "listChannels", summary: "List channels, by id (keys masked)", tag: "channels", input: listQuery, response: pageOf(channelView),
    run: async ({ db, secretBox }, input) => pageAfter(await listChannels(db, secretBox), (channel) => channel.id, input),
  }),
  route({
    method: "POST", path: "/channels", operationId: "createChannel", summary: "Create a channel", tag: "channels", input: createChannelSchema, response: channelView, status: 201, create: true,
    run: ({ db, secretBox, actor, addressPolicy }, input) => createChannel(db, secretBox, actor, input, addressPolicy),
  }),
  route({
    method: "GET", path: "/channels/{id}", operationId: "getChannel", summary: "Get a channel (key masked)", tag: "channels", input: idPath, response: channelView,
    run: ({ db, secretBox }, input) => getChannel(db, secretBox, input.id),
  }),
  route({
    method: "PATCH", path: "/channels/{id}", operationId: "updateChannel", summary: "Change a channel", tag: "channels", input: updateChannelSchema, response: channelView,
    run: ({ db, secretBox, actor, addressPolicy }, input) => updateChannel(db, secretBox, actor, input, addressPolicy),
  }),
  route({
    method: "DELETE", path: "/channels/{id}", operationId: "deleteChannel", summary: "Delete a channel", tag: "channels", input: idPath, response: deleted,
    run: async ({ db, actor }, input) => ({ id: (await deleteChannel(db, actor, input.id)).id, deleted: true }),
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
