import type { BuiltInToolFamily, ChannelConfig } from "@tollgate/db";
import { isRecord } from "@tollgate/shared";
import { GatewayError } from "../errors";

/**
 * Built-in (server) tools: the upstream runs them on the operator's account, and most charge for it
 * (OpenAI: web search and file search per 1,000 calls, code interpreter per container session, image
 * generation per image; Anthropic: web search per 1,000 searches, code execution by container time).
 * Anthropic's web fetch and remote MCP calls cost only tokens, but act with the operator's account all the
 * same. A client may use one only on a channel whose config lists its family with a price (0 allows it
 * free); each call the upstream reports is billed at that price.
 * Client-executed tools (OpenAI computer_use_preview, local_shell, shell, apply_patch; Anthropic computer_*,
 * bash_*, text_editor_*, memory_*) run on the client's machine, cost tokens only, and pass as they are.
 */

/** One built-in tool a request asks for: its family, the type as sent, and where it is in the body. */
export interface RequestedBuiltInTool {
  family: BuiltInToolFamily;
  type: string;
  param: string;
}

/** Calls of each family the upstream reported for one call. */
export type BuiltInToolCalls = Partial<Record<BuiltInToolFamily, number>>;

/** A tool type as the client sent it -> its fee-bearing family, or null for client-executed and function tools. */
export function builtInToolFamily(type: string): BuiltInToolFamily | null {
  // Dated versions: Anthropic's web_search_20250305, OpenAI's web_search_preview_2025_03_11.
  const undated = type.replace(/_(\d{8}|\d{4}_\d{2}_\d{2})$/, "");
  if (undated === "web_search" || undated === "web_search_preview") return "web_search";
  if (undated === "web_fetch") return "web_fetch";
  if (undated === "file_search") return "file_search";
  if (undated === "code_interpreter") return "code_interpreter";
  if (undated === "code_execution") return "code_execution";
  if (undated === "image_generation") return "image_generation";
  if (undated === "mcp") return "mcp";
  return null;
}

/** The fee-bearing tools in a body's `tools` array; `paramOf(index)` names a tool's place in the client's dialect. */
export function requestedBuiltInTools(tools: unknown, paramOf: (index: number) => string): RequestedBuiltInTool[] {
  if (!Array.isArray(tools)) return [];
  const requested: RequestedBuiltInTool[] = [];
  tools.forEach((tool, index) => {
    if (!isRecord(tool) || typeof tool.type !== "string") return;
    const family = builtInToolFamily(tool.type);
    if (family) requested.push({ family, type: tool.type, param: paramOf(index) });
  });
  return requested;
}

/** The price of one call of `family` on a channel, or null when the channel does not allow it. */
export function builtInToolPrice(config: ChannelConfig, family: BuiltInToolFamily): number | null {
  const price = config.builtInTools?.[family]?.pricePerCall;
  return typeof price === "number" && Number.isFinite(price) && price >= 0 ? price : null;
}

/** Whether a channel allows every requested tool. */
export function allowsBuiltInTools(config: ChannelConfig, requested: readonly RequestedBuiltInTool[]): boolean {
  return requested.every((tool) => builtInToolPrice(config, tool.family) !== null);
}

/** One call of each requested family at a channel's prices: what a call's reservation holds for them at least. */
export function builtInToolHold(config: ChannelConfig, requested: readonly RequestedBuiltInTool[]): number {
  let hold = 0;
  const seen = new Set<BuiltInToolFamily>();
  for (const tool of requested) {
    if (seen.has(tool.family)) continue;
    seen.add(tool.family);
    hold += builtInToolPrice(config, tool.family) ?? 0;
  }
  return hold;
}

/** What the reported calls cost on a channel, in micro-USD (a family the channel does not price costs nothing). */
export function builtInToolFee(config: ChannelConfig | undefined, calls: BuiltInToolCalls | undefined): number {
  if (!config || !calls) return 0;
  let fee = 0;
  for (const [family, count] of Object.entries(calls) as Array<[BuiltInToolFamily, number]>) {
    fee += count * (builtInToolPrice(config, family) ?? 0);
  }
  return Math.round(fee);
}

/** 400 in the client's shape: the tool is not enabled on any channel that serves the model. */
export function builtInToolNotAllowed(tool: RequestedBuiltInTool, model: string): GatewayError {
  return new GatewayError(
    `The built-in tool '${tool.type}' is not enabled for the model '${model}': it runs on the gateway operator's upstream account, and no channel serving this model allows it.`,
    { status: 400, code: "builtin_tool_not_allowed", param: tool.param },
  );
}

function add(calls: BuiltInToolCalls, family: BuiltInToolFamily, count = 1): void {
  calls[family] = (calls[family] ?? 0) + count;
}

/** Responses API output item types of fee-bearing calls (computer_call, local_shell_call and function_call are not). */
const responsesCallItems: Record<string, BuiltInToolFamily> = {
  web_search_call: "web_search",
  file_search_call: "file_search",
  code_interpreter_call: "code_interpreter",
  image_generation_call: "image_generation",
  mcp_call: "mcp",
};

/** The family of a Responses output item, or null when it is not a built-in tool call. */
export function responsesItemFamily(item: unknown): BuiltInToolFamily | null {
  return isRecord(item) && typeof item.type === "string" ? (responsesCallItems[item.type] ?? null) : null;
}

/** Built-in tool calls in a Response object's `output` (one item per call). */
export function responsesToolCalls(response: unknown): BuiltInToolCalls {
  const calls: BuiltInToolCalls = {};
  if (!isRecord(response) || !Array.isArray(response.output)) return calls;
  for (const item of response.output) {
    const family = responsesItemFamily(item);
    if (family) add(calls, family);
  }
  return calls;
}

/** The larger count of each family (the same calls seen twice, e.g. as items streamed and in the final object). */
export function mergeToolCalls(first: BuiltInToolCalls, second: BuiltInToolCalls): BuiltInToolCalls {
  const merged: BuiltInToolCalls = { ...first };
  for (const [family, count] of Object.entries(second) as Array<[BuiltInToolFamily, number]>) {
    merged[family] = Math.max(merged[family] ?? 0, count);
  }
  return merged;
}

/** The family of an Anthropic `server_tool_use` block by its name (code execution's tools: bash_/text_editor_code_execution). */
export function anthropicServerToolFamily(block: unknown): BuiltInToolFamily | null {
  if (!isRecord(block) || block.type !== "server_tool_use" || typeof block.name !== "string") return null;
  if (block.name === "web_search") return "web_search";
  if (block.name === "web_fetch") return "web_fetch";
  if (block.name.includes("code_execution")) return "code_execution";
  return null;
}

/**
 * Anthropic's count of server tool requests in a usage object (`server_tool_use.web_search_requests`,
 * `web_fetch_requests`): what Anthropic bills web search by.
 */
export function anthropicUsageToolCalls(usage: unknown): BuiltInToolCalls {
  const calls: BuiltInToolCalls = {};
  if (!isRecord(usage) || !isRecord(usage.server_tool_use)) return calls;
  const counts = usage.server_tool_use;
  if (typeof counts.web_search_requests === "number" && counts.web_search_requests > 0) add(calls, "web_search", counts.web_search_requests);
  if (typeof counts.web_fetch_requests === "number" && counts.web_fetch_requests > 0) add(calls, "web_fetch", counts.web_fetch_requests);
  return calls;
}

/** Server tool calls in a whole Anthropic Message: its server_tool_use blocks, or its usage's counts where larger. */
export function anthropicMessageToolCalls(message: unknown): BuiltInToolCalls {
  const blocks: BuiltInToolCalls = {};
  if (!isRecord(message)) return blocks;
  for (const block of Array.isArray(message.content) ? message.content : []) {
    const family = anthropicServerToolFamily(block);
    if (family) add(blocks, family);
  }
  return mergeToolCalls(blocks, anthropicUsageToolCalls(message.usage));
}

/** Whether a count has any call in it. */
export function hasToolCalls(calls: BuiltInToolCalls | undefined): calls is BuiltInToolCalls {
  return calls !== undefined && Object.values(calls).some((count) => (count ?? 0) > 0);
}
