/**
 * Every endpoint the gateway serves under /v1, as a client would write it. The 404 for any other path
 * lists these, and served-endpoints.test.ts fails when app.ts registers a /v1 route missing from here.
 */
export const SERVED_ENDPOINTS = [
  "POST /v1/chat/completions",
  "POST /v1/completions",
  "POST /v1/responses",
  "GET /v1/responses/{id}",
  "GET /v1/responses/{id}/input_items",
  "DELETE /v1/responses/{id}",
  "POST /v1/messages",
  "POST /v1/messages/count_tokens",
  "POST /v1/embeddings",
  "POST /v1/images/generations",
  "POST /v1/images/edits",
  "POST /v1/audio/transcriptions",
  "POST /v1/audio/translations",
  "POST /v1/audio/speech",
  "POST /v1/moderations",
  "POST /v1/rerank",
  "GET /v1/models",
  "GET /v1/models/{id}",
] as const;

/** `/v1/models/{id}` -> a pattern matching one path segment (or, for model ids with slashes, more) in its place. */
function patternOf(path: string): RegExp {
  const escaped = path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^?#]+");
  return new RegExp(`^${escaped}$`);
}

const endpoints = SERVED_ENDPOINTS.map((endpoint) => {
  const [method, path] = endpoint.split(" ") as [string, string];
  return { method, path, pattern: patternOf(path) };
});

/** The methods the gateway serves at `path` (empty when it serves nothing there): a 405 rather than a 404. */
export function methodsServedAt(path: string): string[] {
  return endpoints.filter((endpoint) => endpoint.pattern.test(path)).map((endpoint) => endpoint.method);
}
