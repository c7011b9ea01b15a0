import { clientValueText, isRecord } from "@tollgate/shared";
import { TranslationError } from "../provider-adapter";
import type { AnthropicCacheControl, AnthropicContentBlock, AnthropicMessagesRequest, AnthropicTextBlock } from "./anthropic-wire-types";

/** Anthropic refuses a request with more cache breakpoints than this (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching). */
export const MAX_CACHE_BREAKPOINTS = 4;

const TTLS = new Set(["5m", "1h"]);

/**
 * A client's `cache_control` (the OpenRouter and LiteLLM convention on OpenAI content parts, messages and
 * tools) checked and kept to what Anthropic reads: `{type: "ephemeral", ttl?: "5m" | "1h"}`. Absent: undefined.
 */
export function cacheControlOf(value: unknown, param: string): AnthropicCacheControl | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value) || value.type !== "ephemeral") {
    throw new TranslationError(`'${param}' must be {"type": "ephemeral"}, optionally with "ttl": "5m" or "1h".`, param);
  }
  if (value.ttl === undefined) return { type: "ephemeral" };
  if (typeof value.ttl !== "string" || !TTLS.has(value.ttl)) {
    throw new TranslationError(`'${param}.ttl' must be "5m" or "1h", not ${clientValueText(value.ttl)}.`, `${param}.ttl`);
  }
  return { type: "ephemeral", ttl: value.ttl };
}

/** The block or tool with a breakpoint set, when `control` is one. */
export function withCacheControl<Target extends object>(target: Target, control: AnthropicCacheControl | undefined): Target {
  return control ? { ...target, cache_control: control } : target;
}

function blocksOf(content: unknown): AnthropicContentBlock[] {
  return Array.isArray(content) ? (content as AnthropicContentBlock[]) : [];
}

/** Breakpoints in a request: on tools, system blocks, message blocks and the blocks inside tool results. */
export function countCacheBreakpoints(request: AnthropicMessagesRequest): number {
  let count = 0;
  const marked = (item: unknown) => isRecord(item) && item.cache_control !== undefined;
  for (const tool of request.tools ?? []) if (marked(tool)) count++;
  for (const block of blocksOf(request.system)) if (marked(block)) count++;
  for (const message of request.messages) {
    for (const block of blocksOf(message.content)) {
      if (marked(block)) count++;
      if (block.type === "tool_result") for (const inner of blocksOf(block.content)) if (marked(inner)) count++;
    }
  }
  return count;
}

/**
 * Breakpoints the channel adds for clients that cannot send them (`autoCacheBreakpoints`): after the tool
 * definitions and after the system prompt, the parts of the prompt that repeat call after call (Anthropic
 * caches the prefix tools -> system -> messages up to each breakpoint). Each is added only where the
 * client put none and while the request stays within Anthropic's limit; a client's own are never moved.
 */
function addAutomaticBreakpoints(request: AnthropicMessagesRequest): void {
  let room = MAX_CACHE_BREAKPOINTS - countCacheBreakpoints(request);
  const tools = request.tools ?? [];
  if (room > 0 && tools.length > 0 && !tools.some((tool) => tool.cache_control)) {
    tools[tools.length - 1] = { ...tools[tools.length - 1]!, cache_control: { type: "ephemeral" } };
    room--;
  }
  const system = request.system;
  if (room <= 0 || system === undefined || system === "") return;
  const blocks: AnthropicTextBlock[] = typeof system === "string" ? [{ type: "text", text: system }] : system;
  if (blocks.length === 0 || blocks.some((block) => block.cache_control)) return;
  blocks[blocks.length - 1] = { ...blocks[blocks.length - 1]!, cache_control: { type: "ephemeral" } };
  request.system = blocks;
}

/**
 * Adds the channel's automatic breakpoints when it asks for them, then refuses a request with more than
 * Anthropic allows: dropping some would silently change what is cached and billed, so the client is told.
 */
export function applyCacheBreakpoints(request: AnthropicMessagesRequest, automatic: boolean): void {
  const count = countCacheBreakpoints(request);
  if (count > MAX_CACHE_BREAKPOINTS) {
    throw new TranslationError(
      `The request marks ${count} cache_control breakpoints; Anthropic models allow at most ${MAX_CACHE_BREAKPOINTS} per request.`,
      "cache_control",
    );
  }
  if (automatic) addAutomaticBreakpoints(request);
}
