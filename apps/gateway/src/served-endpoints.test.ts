import { describe, expect, test } from "bun:test";
import { ENDPOINT_TABLE } from "./endpoint-table";
import { errors } from "./errors";
import { servedEndpoints } from "./served-endpoints";

const served = servedEndpoints(ENDPOINT_TABLE);

describe("servedEndpoints", () => {
  test("lists every row of the endpoint table as a client writes it, in the table's order", () => {
    expect(served.list).toEqual([
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
      "POST /v1/models/{model}:generateContent",
      "POST /v1/models/{model}:streamGenerateContent",
      "POST /v1/models/{model}:countTokens",
      "POST /v1/models/{model}:embedContent",
      "POST /v1/models/{model}:batchEmbedContents",
      "POST /v1beta/models/{model}:generateContent",
      "POST /v1beta/models/{model}:streamGenerateContent",
      "POST /v1beta/models/{model}:countTokens",
      "POST /v1beta/models/{model}:embedContent",
      "POST /v1beta/models/{model}:batchEmbedContents",
      "GET /v1beta/models",
      "GET /v1beta/models/{model}",
    ]);
  });

  test("the table has no two rows for one method and path", () => {
    expect(new Set(ENDPOINT_TABLE.map((row) => `${row.method} ${row.path}`)).size).toBe(ENDPOINT_TABLE.length);
  });

  test("knows the methods served at a path, ids included", () => {
    expect(served.methodsServedAt("/v1/chat/completions")).toEqual(["POST"]);
    expect(served.methodsServedAt("/v1/responses/resp_123").sort()).toEqual(["DELETE", "GET"]);
    expect(served.methodsServedAt("/v1/models/org/model-name")).toEqual(["GET"]);
    expect(served.methodsServedAt("/v1/assistants")).toEqual([]);
  });

  test("a row added to a table is served and listed with the others", () => {
    const extended = servedEndpoints([...ENDPOINT_TABLE, { method: "POST", path: "/v1/toys/{id}", endpoint: "toys", handler: async () => new Response() }]);
    expect(extended.list.at(-1)).toBe("POST /v1/toys/{id}");
    expect(extended.methodsServedAt("/v1/toys/7")).toEqual(["POST"]);
  });
});

describe("errors.notFound", () => {
  test("under /v1 says the gateway does not serve the path and lists what it serves", () => {
    const error = errors.notFound("/v1/assistants", "POST", served.list);
    expect(error.status).toBe(404);
    expect(error.message).toStartWith("This gateway does not serve POST /v1/assistants. It serves: POST /v1/chat/completions,");
    for (const endpoint of served.list) expect(error.message).toContain(endpoint);
  });

  test("outside /v1 says the base address must include /v1", () => {
    expect(errors.notFound("/chat/completions", "POST").message).toContain("must include /v1");
  });
});
