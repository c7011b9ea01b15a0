import { isRecord } from "@tollgate/shared";

function stripOne(item: unknown): { item: unknown; stripped: boolean } {
  if (!isRecord(item) || !("cache_control" in item)) return { item, stripped: false };
  const { cache_control: _hint, ...rest } = item;
  return { item: rest, stripped: true };
}

function stripList(list: unknown, nested?: (item: unknown) => { item: unknown; stripped: boolean }): { list: unknown; stripped: boolean } {
  if (!Array.isArray(list)) return { list, stripped: false };
  let stripped = false;
  const result = list.map((entry) => {
    const own = stripOne(entry);
    const inner = nested ? nested(own.item) : { item: own.item, stripped: false };
    stripped ||= own.stripped || inner.stripped;
    return inner.item;
  });
  return { list: stripped ? result : list, stripped };
}

function stripMessageContent(message: unknown): { item: unknown; stripped: boolean } {
  if (!isRecord(message)) return { item: message, stripped: false };
  const content = stripList(message.content);
  return content.stripped ? { item: { ...message, content: content.list }, stripped: true } : { item: message, stripped: false };
}

/**
 * A chat body without `cache_control` (the prompt-caching hint of the OpenRouter/LiteLLM convention) on its
 * messages, their content parts and its tools, for an upstream that does not read it: OpenAI and most
 * OpenAI-compatible servers cache prompts on their own and may refuse a field they do not know. The same
 * object when there was none to strip (nothing to re-serialise); `text`, the client's own, is a cheap
 * first look.
 */
export function withoutCacheControl(body: Record<string, unknown>, text?: string): Record<string, unknown> {
  if (text !== undefined && !text.includes("cache_control")) return body;
  const messages = stripList(body.messages, stripMessageContent);
  const tools = stripList(body.tools);
  if (!messages.stripped && !tools.stripped) return body;
  return { ...body, ...(messages.stripped ? { messages: messages.list } : {}), ...(tools.stripped ? { tools: tools.list } : {}) };
}
