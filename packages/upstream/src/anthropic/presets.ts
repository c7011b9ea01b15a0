import type { ChannelPreset } from "../channel-presets";

/**
 * Vendors that serve Anthropic's Messages API at an endpoint of their own, for Claude Code
 * (ANTHROPIC_BASE_URL): an `anthropic` channel with one of these base URLs speaks it to them natively,
 * and the adapter appends /v1/messages as it does for Anthropic. Base URLs are the ones each vendor's
 * documentation gives for ANTHROPIC_BASE_URL. Where a vendor answers 404 or 405 to
 * /v1/messages/count_tokens, the gateway counts locally instead (marked x-tollgate-estimated).
 */
export const anthropicCompatiblePresets: Record<string, ChannelPreset> = {
  "zhipu-anthropic": {
    label: "Zhipu GLM (BigModel), Anthropic-compatible",
    baseUrl: "https://open.bigmodel.cn/api/anthropic",
    notes: "International endpoint (Z.ai): https://api.z.ai/api/anthropic. Models: glm-4.6, glm-4.5-air and later.",
  },
  "moonshot-anthropic": {
    label: "Moonshot (Kimi), Anthropic-compatible",
    baseUrl: "https://api.moonshot.ai/anthropic",
    notes: "Mainland China endpoint: https://api.moonshot.cn/anthropic. Models: kimi-k2 family.",
  },
  "deepseek-anthropic": {
    label: "DeepSeek, Anthropic-compatible",
    baseUrl: "https://api.deepseek.com/anthropic",
    notes:
      "anthropic-version and anthropic-beta are ignored. Model names starting with claude- are mapped by DeepSeek " +
      "to its own models; other unknown names answer 400.",
  },
  "qwen-anthropic": {
    label: "Qwen (Alibaba Cloud Model Studio), Anthropic-compatible",
    baseUrl: "https://dashscope-intl.aliyuncs.com/apps/anthropic",
    notes: "International (Singapore) endpoint; mainland China accounts use https://dashscope.aliyuncs.com/apps/anthropic.",
  },
};
