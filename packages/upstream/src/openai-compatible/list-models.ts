import type { AdapterChannel } from "../provider-adapter";
import { channelExtraHeaders } from "../shared/channel-headers";
import { ListingFailure, type ModelListPages } from "../shared/model-list-page";

/** OpenAI and compatible vendors: GET {base}/models, `{"object":"list","data":[{"id":...}]}`, one page. */
export async function listModels(channel: AdapterChannel, pages: ModelListPages): Promise<string[]> {
  const page = await pages.getJson(`${channel.baseUrl}/models`, { authorization: `Bearer ${channel.apiKey}`, ...channelExtraHeaders(channel.config) });
  if (!Array.isArray(page.data)) throw new ListingFailure('The upstream\'s answer is not a model list (no "data" array)');
  return page.data.flatMap((item) => (item && typeof item === "object" && typeof (item as { id?: unknown }).id === "string" ? [(item as { id: string }).id] : []));
}
