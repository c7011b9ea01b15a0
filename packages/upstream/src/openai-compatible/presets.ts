import type { ChannelPreset } from "../channel-presets";

export interface OpenAICompatibleQuirks {
  /** The vendor returns `reasoning_content` (DeepSeek etc.); the gateway passes it through. */
  reasoningContent?: boolean;
  /** The vendor rejects `stream_options` (so `include_usage` cannot be asked for). */
  noStreamOptions?: boolean;
  /** Top-level OpenAI fields the vendor rejects; they are removed before forwarding. */
  dropFields?: string[];
  /**
   * The vendor reads `cache_control` on messages, content parts and tools (prompt-cache breakpoints for the
   * models behind it); other channels get it stripped (shared/strip-cache-control.ts).
   */
  keepsCacheControl?: boolean;
}

export interface OpenAICompatiblePreset extends ChannelPreset {
  /** Includes the version path, as the openai-compatible adapter appends `/chat/completions` to it. */
  baseUrl: string;
  quirks?: OpenAICompatibleQuirks;
  /**
   * The vendor serves OpenAI's Responses API at `{baseUrl}/responses`: /v1/responses is relayed to it as is.
   * Otherwise (and for channels without a preset) it is translated through chat completions. A channel's
   * `config.responsesApi` overrides this.
   */
  responsesApi?: boolean;
}

/**
 * Starting points for channels of vendors that speak OpenAI's chat-completions format, for the console's
 * "new channel" form and the CLI. Base URLs and quirks were checked against the vendors' public docs and
 * issue trackers; notes say where a quirk could not be confirmed or lies in a nested field that `dropFields`
 * cannot express.
 */
export const openAICompatiblePresets: Record<string, OpenAICompatiblePreset> = {
  openai: {
    label: "OpenAI",
    baseUrl: "https://api.openai.com/v1",
    responsesApi: true,
  },
  deepseek: {
    label: "DeepSeek",
    baseUrl: "https://api.deepseek.com/v1",
    notes:
      "deepseek-reasoner returns reasoning_content and answers 400 when reasoning_content is sent back inside " +
      "input messages, so clients must strip it from history. Cache hits are reported as " +
      "usage.prompt_cache_hit_tokens. https://api.deepseek.com (without /v1) works as well.",
    quirks: { reasoningContent: true },
  },
  qwen: {
    label: "Qwen (Alibaba Cloud DashScope, compatible mode)",
    baseUrl: "https://dashscope.aliyuncs.com/compatible-mode/v1",
    notes:
      "Mainland China endpoint; international accounts use https://dashscope-intl.aliyuncs.com/compatible-mode/v1. " +
      "Thinking models (QwQ, Qwen3 with enable_thinking) return reasoning_content; enable_thinking is a " +
      "vendor field clients send at the top level. stream_options.include_usage is supported.",
    quirks: { reasoningContent: true },
  },
  zhipu: {
    label: "Zhipu GLM (BigModel)",
    baseUrl: "https://open.bigmodel.cn/api/paas/v4",
    notes:
      "GLM-4.5 and later return reasoning_content (thinking: {type: enabled|disabled}). Reported as rejecting " +
      "stream_options, frequency_penalty and presence_penalty; only max_tokens is understood " +
      "(max_completion_tokens should become max_tokens, which dropFields cannot do); tool_choice only 'auto'; " +
      "messages[].name unsupported. Usage arrives in the last stream chunk without being asked. International " +
      "endpoint (Z.ai): https://api.z.ai/api/paas/v4.",
    quirks: { reasoningContent: true, noStreamOptions: true, dropFields: ["frequency_penalty", "presence_penalty"] },
  },
  moonshot: {
    label: "Moonshot (Kimi)",
    baseUrl: "https://api.moonshot.cn/v1",
    notes:
      "International endpoint: https://api.moonshot.ai/v1. Thinking models (kimi-k2-thinking and later) return " +
      "reasoning_content. Streams put usage inside choices[0].usage of the finish chunk instead of a " +
      "top-level usage chunk; some models accept only temperature 1.",
    quirks: { reasoningContent: true },
  },
  mistral: {
    label: "Mistral AI",
    baseUrl: "https://api.mistral.ai/v1",
    notes:
      "Rejects unknown fields with 422 (extra_forbidden): stream_options, store and max_completion_tokens among " +
      "them (max_completion_tokens should become max_tokens rather than be dropped). Usage arrives in the last " +
      "stream chunk without being asked.",
    quirks: { noStreamOptions: true, dropFields: ["store"] },
  },
  groq: {
    label: "Groq",
    baseUrl: "https://api.groq.com/openai/v1",
    notes:
      "Documented as answering 400 to logprobs, logit_bias, top_logprobs and messages[].name (nested, not " +
      "covered by dropFields), and to n other than 1. Temperature 0 is turned into 1e-8. Reasoning models " +
      "return `reasoning` rather than reasoning_content.",
    quirks: { dropFields: ["logprobs", "logit_bias", "top_logprobs"] },
    responsesApi: true,
  },
  xai: {
    label: "xAI (Grok)",
    baseUrl: "https://api.x.ai/v1",
    notes:
      "grok-3-mini returns reasoning_content; grok-4 family reasoning models do not, and answer 400 to " +
      "presence_penalty, frequency_penalty, stop and (depending on the model) reasoning_effort, which is " +
      "per-model and therefore not a preset quirk.",
    quirks: { reasoningContent: true },
    responsesApi: true,
  },
  openrouter: {
    label: "OpenRouter",
    baseUrl: "https://openrouter.ai/api/v1",
    notes:
      "Routes to many vendors; reasoning comes back as `reasoning` (and reasoning_details), not " +
      "reasoning_content. Optional HTTP-Referer and X-Title headers attribute traffic to an app. " +
      "cache_control breakpoints are passed on (OpenRouter reads them for Anthropic and Gemini models).",
    quirks: { keepsCacheControl: true },
    responsesApi: true,
  },
  vllm: {
    label: "vLLM (self-hosted)",
    baseUrl: "http://localhost:8000/v1",
    notes:
      "Supports stream_options. With a --reasoning-parser, reasoning is returned as reasoning_content (newer " +
      "releases also name it `reasoning`; unverified which versions switched). The API key is whatever " +
      "--api-key was started with, or anything when unset.",
    quirks: { reasoningContent: true },
  },
  ollama: {
    label: "Ollama (self-hosted)",
    baseUrl: "http://localhost:11434/v1",
    notes:
      "The key is required by clients but ignored. stream_options.include_usage is supported. Thinking models " +
      "return `reasoning` rather than reasoning_content in the OpenAI-compatible API (version-dependent, " +
      "unverified).",
  },
};
