import { describe, expect, test } from "bun:test";
import { errors } from "./errors";
import { methodsServedAt, SERVED_ENDPOINTS } from "./served-endpoints";

/** The /v1 routes app.ts registers, as `METHOD /path` with Elysia's `:param` and `*` written `{id}`. */
async function registeredRoutes(): Promise<string[]> {
  const source = await Bun.file(new URL("./app.ts", import.meta.url)).text();
  const routes = [...source.matchAll(/\.(get|post|put|patch|delete)\(\s*"(\/v1\/[^"]*)"/g)];
  return routes.map(([, method, path]) => `${method!.toUpperCase()} ${path!.replace(/\/(:[^/]+|\*)/g, "/{id}")}`);
}

describe("SERVED_ENDPOINTS", () => {
  test("lists every /v1 route app.ts registers", async () => {
    const routes = await registeredRoutes();
    expect(routes.length).toBeGreaterThan(5);
    expect(routes.filter((route) => !(SERVED_ENDPOINTS as readonly string[]).includes(route))).toEqual([]);
  });

  test("knows the methods served at a path, ids included", () => {
    expect(methodsServedAt("/v1/chat/completions")).toEqual(["POST"]);
    expect(methodsServedAt("/v1/responses/resp_123").sort()).toEqual(["DELETE", "GET"]);
    expect(methodsServedAt("/v1/models/org/model-name")).toEqual(["GET"]);
    expect(methodsServedAt("/v1/assistants")).toEqual([]);
  });
});

describe("errors.notFound", () => {
  test("under /v1 says the gateway does not serve the path and lists what it serves", () => {
    const error = errors.notFound("/v1/assistants", "POST");
    expect(error.status).toBe(404);
    expect(error.message).toStartWith("This gateway does not serve POST /v1/assistants. It serves: POST /v1/chat/completions,");
    for (const endpoint of SERVED_ENDPOINTS) expect(error.message).toContain(endpoint);
  });

  test("outside /v1 says the base address must include /v1", () => {
    expect(errors.notFound("/chat/completions", "POST").message).toContain("must include /v1");
  });
});
