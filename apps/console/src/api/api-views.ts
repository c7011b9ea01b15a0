import { z } from "zod";

/**
 * What the management API answers, for its OpenAPI document (and so for generated clients). Loose objects:
 * the fields named are promised, further ones may be added.
 */
const id = z.number().int();
const instant = z.string().describe("ISO 8601 instant");

export const tokenView = z.looseObject({
  id,
  name: z.string(),
  keyPrefix: z.string(),
  userId: id,
  status: z.string(),
  quotaLimit: z.number().nullable(),
  usedQuota: z.number(),
  createdAt: instant,
});

const budgetView = z.looseObject({ period: z.string(), limit: z.number().nullable(), spent: z.number(), resetsAt: instant.nullable() });

export const teamView = z.looseObject({
  id,
  name: z.string(),
  description: z.string(),
  oidcGroup: z.string().nullable(),
  status: z.string(),
  budget: budgetView,
  allowedModels: z.array(z.string()),
  rpmLimit: z.number().nullable(),
  tpmLimit: z.number().nullable(),
  createdAt: instant,
});

export const teamMemberView = z.looseObject({ userId: id, name: z.string(), role: z.enum(["team_admin", "member"]), source: z.string() });

export const userView = z.looseObject({ id, name: z.string(), role: z.enum(["admin", "user"]), group: z.string(), status: z.string(), balance: z.number() });

export const channelView = z.looseObject({ id, name: z.string(), type: z.string(), baseUrl: z.string(), models: z.array(z.string()), status: z.string(), keyMasked: z.string().nullable() });

export const priceView = z.looseObject({ model: z.string(), unit: z.string(), inputPrice: z.number(), outputPrice: z.number() });

export const modelView = z.looseObject({
  model: z.string(),
  price: priceView.nullable(),
  channels: z.array(z.object({ id, name: z.string(), status: z.string() })),
});

export const usageRowView = z.object({
  day: z.string(),
  model: z.string(),
  requests: z.number(),
  errors: z.number(),
  promptTokens: z.number(),
  completionTokens: z.number(),
  cost: z.number().describe("micro-USD"),
});

export const auditRowView = z.object({
  id,
  at: instant,
  actorKind: z.enum(["user", "cli", "api_key"]),
  actorId: id.nullable(),
  actorName: z.string().nullable(),
  sourceAddress: z.string().nullable(),
  action: z.string(),
  objectType: z.string(),
  objectId: z.string().nullable(),
  before: z.unknown(),
  after: z.unknown(),
  prevHash: z.string(),
  hash: z.string(),
});

/** One page of a list: `nextCursor` is passed back as `cursor` for the next page; null at the end. */
export function pageOf<Item extends z.ZodType>(item: Item) {
  return z.object({ data: z.array(item), nextCursor: z.string().nullable() });
}

export const errorView = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    code: z.string(),
    param: z.string().nullable(),
    fieldErrors: z.record(z.string(), z.array(z.string())).nullable(),
  }),
});
