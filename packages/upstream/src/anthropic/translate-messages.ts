import { TranslationError } from "../provider-adapter";
import type { AnthropicContentBlock, AnthropicMessageParam, AnthropicTextBlock, AnthropicToolUseBlock } from "./anthropic-wire-types";
import { cacheControlOf } from "./cache-breakpoints";
import { textBlocksOf, userContentBlocks } from "./translate-content-parts";
import { assistantToolCalls } from "../shared/tool-call-arguments";
import { visitChatMessages } from "../shared/visit-chat-messages";

export interface TranslatedConversation {
  /** A string, or text blocks when a part carries `cache_control` (which only a block can hold). */
  system: string | AnthropicTextBlock[] | undefined;
  messages: AnthropicMessageParam[];
}

interface Turn {
  role: "user" | "assistant";
  blocks: AnthropicContentBlock[];
}

function assistantBlocks(message: Record<string, unknown>, param: string): AnthropicContentBlock[] {
  const blocks: AnthropicContentBlock[] = textBlocksOf(message.content, `${param}.content`);
  for (const call of assistantToolCalls(message, param, "Anthropic")) {
    const block: AnthropicToolUseBlock = { type: "tool_use", id: call.id, name: call.name, input: call.input };
    blocks.push(block);
  }
  return blocks;
}

function toolResultBlock(message: Record<string, unknown>, param: string): AnthropicContentBlock {
  if (typeof message.tool_call_id !== "string" || message.tool_call_id === "") {
    throw new TranslationError(`'${param}.tool_call_id' is required.`, `${param}.tool_call_id`);
  }
  const content = typeof message.content === "string" ? message.content : textBlocksOf(message.content, `${param}.content`);
  const hasContent = typeof content === "string" ? content !== "" : content.length > 0;
  return { type: "tool_result", tool_use_id: message.tool_call_id, ...(hasContent ? { content } : {}) };
}

/**
 * Appends to the conversation, merging into the previous turn when the role repeats: Anthropic wants user and
 * assistant turns to alternate, and OpenAI's separate `tool` messages all belong to one user turn. Blocks are
 * pushed in place (a run of many tool messages stays linear); toMessageParam puts a user turn's tool
 * results first, as Anthropic requires.
 */
function appendTurn(turns: Turn[], role: Turn["role"], blocks: AnthropicContentBlock[]): void {
  if (blocks.length === 0) return;
  const last = turns.at(-1);
  if (!last || last.role !== role) {
    turns.push({ role, blocks: [...blocks] });
    return;
  }
  for (const block of blocks) last.blocks.push(block);
}

function toolResultsFirst(blocks: AnthropicContentBlock[]): AnthropicContentBlock[] {
  const toolResults = blocks.filter((block) => block.type === "tool_result");
  if (toolResults.length === 0 || toolResults.length === blocks.length) return blocks;
  return [...toolResults, ...blocks.filter((block) => block.type !== "tool_result")];
}

/** A turn of a single plain text block is sent as a string, the form Anthropic's own examples use. */
function toMessageParam(turn: Turn): AnthropicMessageParam {
  const [only] = turn.blocks;
  if (turn.blocks.length === 1 && only?.type === "text" && only.cache_control === undefined) return { role: turn.role, content: only.text };
  return { role: turn.role, content: turn.role === "user" ? toolResultsFirst(turn.blocks) : turn.blocks };
}

function systemOf(blocks: AnthropicTextBlock[]): string | AnthropicTextBlock[] | undefined {
  if (blocks.length === 0) return undefined;
  if (blocks.some((block) => block.cache_control !== undefined)) return blocks;
  return blocks.map((block) => block.text).join("\n\n");
}

/**
 * A message's own `cache_control` (LiteLLM's form for a message whose content is a string) marks its last
 * block, which is where a part's would have put the breakpoint.
 */
function markLastBlock<Block extends AnthropicContentBlock>(blocks: Block[], message: Record<string, unknown>, param: string): Block[] {
  const control = cacheControlOf(message.cache_control, `${param}.cache_control`);
  const last = blocks.at(-1);
  if (control && last) blocks[blocks.length - 1] = { ...last, cache_control: control };
  return blocks;
}

/** OpenAI's `messages` -> Anthropic's top-level `system` and alternating user/assistant `messages`. */
export function translateMessages(messages: unknown): TranslatedConversation {
  const systemBlocks: AnthropicTextBlock[] = [];
  const turns: Turn[] = [];
  visitChatMessages(messages, "Anthropic", {
    system(message, param) {
      // A loop, not push(...blocks): a spread of a very long list overflows the argument stack.
      for (const block of markLastBlock(textBlocksOf(message.content, `${param}.content`), message, param)) systemBlocks.push(block);
    },
    user: (message, param) => appendTurn(turns, "user", markLastBlock(userContentBlocks(message.content, `${param}.content`), message, param)),
    assistant: (message, param) => appendTurn(turns, "assistant", markLastBlock(assistantBlocks(message, param), message, param)),
    tool: (message, param) => appendTurn(turns, "user", markLastBlock([toolResultBlock(message, param)], message, param)),
  });
  return { system: systemOf(systemBlocks), messages: turns.map(toMessageParam) };
}
