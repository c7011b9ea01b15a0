import type { AdapterChannel } from "../provider-adapter";
import { channelExtraHeaders } from "../shared/channel-headers";
import { arrayField, ListingFailure, type ModelListPages } from "../shared/model-list-page";
import { anthropicApiUrl, anthropicVersion } from "./build-request";

/**
 * Anthropic: GET /v1/models with x-api-key and anthropic-version, newest first, paged by `after_id` =
 * the previous page's `last_id` while `has_more` (https://docs.anthropic.com/en/api/models-list).
 */
export async function listModels(channel: AdapterChannel, pages: ModelListPages): Promise<string[]> {
  const url = anthropicApiUrl(channel.baseUrl, "models");
  const headers = { "x-api-key": channel.apiKey, "anthropic-version": anthropicVersion, ...channelExtraHeaders(channel.config) };
  const models: string[] = [];
  let afterId: string | null = null;
  for (let pageNumber = 0; pageNumber < pages.maxPages; pageNumber++) {
    const query: string = `?limit=1000${afterId ? `&after_id=${encodeURIComponent(afterId)}` : ""}`;
    const page = await pages.getJson(`${url}${query}`, headers);
    for (const item of arrayField(page, "data")) {
      const id = (item as { id?: unknown } | null)?.id;
      if (typeof id === "string") models.push(id);
    }
    if (page.has_more !== true || typeof page.last_id !== "string" || page.last_id === afterId) return models;
    afterId = page.last_id;
  }
  throw new ListingFailure(`The upstream kept paging past ${pages.maxPages} pages`);
}
