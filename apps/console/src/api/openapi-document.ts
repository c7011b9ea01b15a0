import { z } from "zod";
import type { ApiRoute } from "./api-routes";
import { errorView } from "./api-views";

type JsonSchema = { type?: unknown; properties?: Record<string, JsonSchema>; required?: string[]; [key: string]: unknown };

/** The `{name}` parameters of a path. */
export function pathParameters(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
}

/** An input schema as a client writes it (before defaults and transforms), as JSON Schema draft 2020-12 (OpenAPI 3.1's). */
function inputJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
  return json;
}

function outputJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: "output", unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
  return json;
}

function errorResponses(route: ApiRoute): Record<string, unknown> {
  const error = (description: string) => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } });
  return {
    "400": error("Invalid input: the message and fieldErrors say which field and why"),
    "401": error("Missing, unknown or revoked API key"),
    "403": error("The key's scope or the rules refuse it"),
    ...(route.path.includes("{") ? { "404": error("No such object") } : {}),
    ...(route.create ? { "409": error("The Idempotency-Key was used with another request, or its first request is still running") } : {}),
  };
}

/**
 * OpenAPI 3.1 for every route of the table, from the same zod schemas that read the input: path parameters
 * and query parameters are the input's fields, a body is the rest of it.
 */
export function openApiDocument(routes: ApiRoute[], serverUrl = "/api/v1"): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const inPath = pathParameters(route.path);
    const input = route.input ? inputJsonSchema(route.input) : { type: "object", properties: {} };
    const properties = { ...(input.properties ?? {}) };
    const required = new Set(input.required ?? []);
    const parameters: Record<string, unknown>[] = inPath.map((name) => {
      const schema = properties[name] ?? { type: "string" };
      delete properties[name];
      required.delete(name);
      return { name, in: "path", required: true, schema };
    });
    const operation: Record<string, unknown> = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      responses: {
        [String(route.status ?? 200)]: { description: "OK", content: { "application/json": { schema: outputJsonSchema(route.response) } } },
        ...errorResponses(route),
      },
    };
    if (route.method === "GET" || route.method === "DELETE") {
      for (const [name, schema] of Object.entries(properties)) parameters.push({ name, in: "query", required: required.has(name), schema });
    } else {
      const { properties: _all, required: _required, ...rest } = input;
      const body: JsonSchema = { ...rest, type: "object", properties };
      if (required.size > 0) body.required = [...required];
      operation.requestBody = { required: true, content: { "application/json": { schema: body } } };
    }
    if (route.create) {
      parameters.push({
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description: "A retry with the same key and body replays the first answer (for 24 hours); another body is refused with 409.",
        schema: { type: "string", maxLength: 255 },
      });
    }
    if (parameters.length > 0) operation.parameters = parameters;
    const openApiPath = route.path;
    paths[openApiPath] ??= {};
    paths[openApiPath][route.method.toLowerCase()] = operation;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Tollgate management API",
      version: "1",
      description: "Users, tokens, channels, models and prices, usage and the audit log. Authenticate with `Authorization: Bearer <admin API key>`; a read key may only GET.",
    },
    servers: [{ url: serverUrl }],
    security: [{ adminApiKey: [] }],
    paths,
    components: {
      securitySchemes: { adminApiKey: { type: "http", scheme: "bearer", description: "An admin API key (tgadm-...), created in the console or with `admin apikey create`" } },
      schemas: { Error: outputJsonSchema(errorView) },
    },
  };
}
