import type { MediaCapability } from "../provider-adapter";
import { mediaHeaders, mediaWireBody } from "../shared/media-parts";

/** Every media operation at `{baseUrl}/{operation}` with a bearer key; an upstream that lacks one answers 404 itself. */
export const openAICompatibleMedia: MediaCapability = {
  serves: () => true,
  buildRequest: (channel, _deployment, operation, body) => ({
    url: `${channel.baseUrl}/${operation}`,
    headers: { ...mediaHeaders(channel, body), authorization: `Bearer ${channel.apiKey}` },
    body: mediaWireBody(body),
  }),
};
