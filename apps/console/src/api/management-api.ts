import { authenticateApiKey, canonicalJson, type ChannelProber, describeUnexpectedError } from "@tollgate/admin";
import type { Database } from "@tollgate/db";
import type { BodyCap, SecretBox, UpstreamAddressPolicy } from "@tollgate/shared";
import { MAX_JSON_DEPTH, nestsDeeperThan, withCappedBody } from "@tollgate/shared";
import { ApiError, errorResponse, jsonResponse } from "./api-error";
import { API_ROUTES, type ApiRoute } from "./api-routes";
import { openApiDocument, pathParameters } from "./openapi-document";
import { runIdempotent } from "./idempotency";

export const API_BASE_PATH = "/api/v1";

export interface ManagementApiDependencies {
  db: Database;
  secretBox: SecretBox;
  addressPolicy: UpstreamAddressPolicy;
  testChannel: ChannelProber;
  bodyCap: BodyCap;
  log: (level: "debug" | "info" | "warn" | "error", message: string, fields?: Record<string, unknown>) => void;
}

interface CompiledRoute {
  route: ApiRoute;
  pattern: RegExp;
  names: string[];
}

function compile(route: ApiRoute): CompiledRoute {
  const names = pathParameters(route.path);
  const pattern = new RegExp(`^${route.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{\w+\\?\}/g, "([^/]+)")}$`);
  return { route, pattern, names };
}

/** A path parameter: an id as a number (the admin schemas' record ids are numbers), anything else as text. */
function parameterValue(text: string): string | number {
  let decoded: string;
  try {
    decoded = decodeURIComponent(text);
  } catch {
    throw new ApiError(400, "invalid_input", "A path segment is not valid percent-encoded UTF-8");
  }
  return /^\d{1,15}$/.test(decoded) ? Number(decoded) : decoded;
}

async function readJsonBody(request: Request): Promise<Record<string, unknown>> {
  const text = await request.text();
  if (text.trim() === "") return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(400, "invalid_json", "The body is not valid JSON");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw new ApiError(400, "invalid_json", "The body must be a JSON object");
  // Bounded before anything walks it (the Idempotency-Key's request hash reads every field, known or not).
  if (nestsDeeperThan(body, MAX_JSON_DEPTH)) throw new ApiError(400, "invalid_json", `The body nests deeper than ${MAX_JSON_DEPTH} levels`);
  return body as Record<string, unknown>;
}

/**
 * The management API (/api/v1): users, tokens, channels, models and prices, usage and the audit log, each an
 * admin operation (the console's and the CLI's rules and messages), authenticated by an admin API key.
 * Served by the console, so the all-in-one and console modes both have it.
 */
export function createManagementApi(deps: ManagementApiDependencies) {
  const compiled = API_ROUTES.map(compile);
  // Built by the first request for it: most servers are never asked, and its JSON Schemas take a while to make.
  let document: string | null = null;

  async function answer(request: Request, url: URL, clientIp: string | null): Promise<Response> {
    const path = url.pathname.slice(API_BASE_PATH.length) || "/";
    if (path === "/openapi.json" && request.method === "GET") {
      document ??= JSON.stringify(openApiDocument(API_ROUTES, API_BASE_PATH));
      return new Response(document, { headers: { "content-type": "application/json" } });
    }
    const matches = compiled.map((entry) => ({ entry, match: entry.pattern.exec(path) })).filter((candidate) => candidate.match !== null);
    if (matches.length === 0) throw new ApiError(404, "unknown_url", `Unknown path ${request.method} ${url.pathname}`);
    const found = matches.find((candidate) => candidate.entry.route.method === request.method);
    if (!found) {
      const allowed = matches.map((candidate) => candidate.entry.route.method).join(", ");
      throw new ApiError(405, "method_not_allowed", `${request.method} is not allowed on ${url.pathname} (allowed: ${allowed})`);
    }
    const { route, names } = found.entry;

    const header = request.headers.get("authorization") ?? "";
    const secret = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    const authenticated = secret ? await authenticateApiKey(deps.db, secret, clientIp) : null;
    if (!authenticated) throw new ApiError(401, "invalid_api_key", "Missing, unknown or revoked API key: send Authorization: Bearer <admin API key>");
    if (route.method !== "GET" && authenticated.apiKey.scope !== "write") throw new ApiError(403, "insufficient_scope", "This API key is read-only: only GET requests are allowed");
    // A key limited to a team acts as that team's admin: on team-scoped routes only (its tokens, members, usage).
    if (authenticated.apiKey.teamId !== null && !route.teamScoped) {
      throw new ApiError(403, "team_scope", `This API key is limited to team ${authenticated.apiKey.teamId}: it manages only that team's tokens, members and usage`);
    }

    const parameters = Object.fromEntries(names.map((name, index) => [name, parameterValue(found.match![index + 1] as string)]));
    const raw = route.method === "GET" || route.method === "DELETE" ? Object.fromEntries(url.searchParams) : await readJsonBody(request);
    const input = route.input ? route.input.parse({ ...raw, ...parameters }) : undefined;
    const context = { db: deps.db, secretBox: deps.secretBox, actor: authenticated.actor, addressPolicy: deps.addressPolicy, testChannel: deps.testChannel };
    const status = route.status ?? 200;
    const idempotencyKey = route.create ? request.headers.get("idempotency-key") : null;
    if (idempotencyKey === null) return jsonResponse(status, await route.run(context, input));
    const outcome = await runIdempotent(
      { db: deps.db, secretBox: deps.secretBox, apiKeyId: authenticated.apiKey.id, key: idempotencyKey, request: `${route.method} ${path}\n${canonicalJson(raw)}` },
      async () => {
        try {
          return { status, body: JSON.parse(JSON.stringify(await route.run(context, input))) };
        } catch (error) {
          const refused = errorResponse(error);
          if (refused.status >= 500) throw error;
          return refused;
        }
      },
    );
    return jsonResponse(outcome.status, outcome.body, outcome.replayed ? { "idempotent-replayed": "true" } : {});
  }

  return {
    /** Answers /api/v1/*; null for any other path. */
    async handle(request: Request, clientIp: string | null): Promise<Response | null> {
      const url = new URL(request.url);
      if (url.pathname !== API_BASE_PATH && !url.pathname.startsWith(`${API_BASE_PATH}/`)) return null;
      try {
        return await answer(withCappedBody(request, deps.bodyCap), url, clientIp);
      } catch (error) {
        const refused = errorResponse(error);
        if (refused.status >= 500) deps.log("error", "management API request failed", { path: url.pathname, error: describeUnexpectedError(error) });
        return jsonResponse(refused.status, refused.body);
      }
    },
  };
}
