import type { AdapterChannel } from "../provider-adapter";
import { channelExtraHeaders } from "../shared/channel-headers";
import { arrayField, ListingFailure, type ModelListPages } from "../shared/model-list-page";

/**
 * Gemini: models.list, GET /v1beta/models with the key in x-goog-api-key, paged by `pageToken` =
 * `nextPageToken`; names lose their "models/" prefix and only models that support generateContent (chat)
 * are kept, so that embedding-only and other models are not offered as chat models
 * (https://ai.google.dev/api/models#method:-models.list).
 */
export async function listModels(channel: AdapterChannel, pages: ModelListPages): Promise<string[]> {
  const headers = { ...channelExtraHeaders(channel.config), "x-goog-api-key": channel.apiKey };
  const models: string[] = [];
  let pageToken: string | null = null;
  for (let pageNumber = 0; pageNumber < pages.maxPages; pageNumber++) {
    const query: string = `?pageSize=1000${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ""}`;
    const page = await pages.getJson(`${channel.baseUrl}/v1beta/models${query}`, headers);
    for (const item of arrayField(page, "models")) {
      const model = item as { name?: unknown; supportedGenerationMethods?: unknown } | null;
      if (typeof model?.name !== "string") continue;
      const methods = Array.isArray(model.supportedGenerationMethods) ? model.supportedGenerationMethods : [];
      if (!methods.includes("generateContent")) continue;
      models.push(model.name.startsWith("models/") ? model.name.slice("models/".length) : model.name);
    }
    if (typeof page.nextPageToken !== "string" || page.nextPageToken === "" || page.nextPageToken === pageToken) return models;
    pageToken = page.nextPageToken;
  }
  throw new ListingFailure(`The upstream kept paging past ${pages.maxPages} pages`);
}
