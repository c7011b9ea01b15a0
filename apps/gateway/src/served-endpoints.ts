import { type EndpointRow, isSelfAdmittingRow } from "./pipeline/endpoint";

/** What an endpoint table serves, as the 404 and 405 answers use it. */
export interface ServedEndpoints {
  /** Every endpoint as a client would write it (`GET /v1/models/{id}`), in the table's order. */
  list: readonly string[];
  /** The methods served at `path` (empty when nothing is served there): a 405 rather than a 404. */
  methodsServedAt(path: string): string[];
}

/** `/v1/models/{id}` -> a pattern matching one path segment (or, for model ids with slashes, more) in its place. */
function patternOf(path: string): RegExp {
  const escaped = path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^?#]+");
  return new RegExp(`^${escaped}$`);
}

/** A row's path as a client reads it: `{id*}` (a parameter spanning segments) written `{id}`. */
export function displayPath(path: string): string {
  return path.replace(/\{([^}*]+)\*\}/g, "{$1}");
}

/** The table's endpoints and the methods served at a path, worked out once (at startup). */
export function servedEndpoints(table: readonly EndpointRow[]): ServedEndpoints {
  const endpoints = table.map((row) => ({ method: row.method, path: displayPath(row.path), pattern: patternOf(displayPath(row.path)), api: !isSelfAdmittingRow(row) }));
  return {
    // The /v1 API's endpoints: a protocol of its own (/mcp) answers its own errors and is not listed.
    list: endpoints.filter((endpoint) => endpoint.api).map((endpoint) => `${endpoint.method} ${endpoint.path}`),
    methodsServedAt: (path) => endpoints.filter((endpoint) => endpoint.pattern.test(path)).map((endpoint) => endpoint.method),
  };
}
