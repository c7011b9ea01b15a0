import type { GatewayServices } from "../../gateway-services";
import type { EndpointModule } from "../../pipeline/endpoint";
import { handleDeleteResponse, handleListInputItems, handleRetrieveResponse } from "./stored-response-routes";
import { createResponsesCodec } from "./responses-codec";
import { PendingResponseSaves, purgeExpiredResponses } from "./stored-response-store";

/** How often each instance deletes expired stored responses (expired ones are never served in between). */
const PURGE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * The inserts still running, one set per gateway (its services): shared by the codec that stores answers
 * and the routes that read them back, made the first time either asks (at startup, when the table is
 * resolved), so that the module needs nothing from app.ts or the services.
 */
const savesByGateway = new WeakMap<GatewayServices, PendingResponseSaves>();
function savesOf(services: GatewayServices): PendingResponseSaves {
  let saves = savesByGateway.get(services);
  if (!saves) {
    saves = new PendingResponseSaves();
    savesByGateway.set(services, saves);
  }
  return saves;
}

/**
 * The Responses API, a stateful endpoint family: the exchange on POST /v1/responses, the stored responses
 * read back and deleted by id (their owner's token only), and the hourly purge of those past retention.
 */
export const responsesModule: EndpointModule = {
  rows: [
    { method: "POST", path: "/v1/responses", codec: (services) => createResponsesCodec(services, savesOf(services)) },
    {
      method: "GET",
      path: "/v1/responses/{id}",
      endpoint: "responses.retrieve",
      handler: (call) => handleRetrieveResponse({ ...call, saves: savesOf(call.services) }),
    },
    {
      method: "GET",
      path: "/v1/responses/{id}/input_items",
      endpoint: "responses.input_items",
      handler: (call) => handleListInputItems({ ...call, saves: savesOf(call.services) }),
    },
    {
      method: "DELETE",
      path: "/v1/responses/{id}",
      endpoint: "responses.delete",
      handler: (call) => handleDeleteResponse({ ...call, saves: savesOf(call.services) }),
    },
  ],
  jobs: [{ name: "stored-responses-purge", everyMs: PURGE_INTERVAL_MS, run: (services) => purgeExpiredResponses(services.database.db) }],
};
