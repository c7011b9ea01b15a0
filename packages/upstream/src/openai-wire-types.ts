/**
 * The OpenAI chat-completions shapes the Anthropic translations read and write. Bodies arrive as untyped
 * JSON, so every reader still checks what it touches; these types document what it expects to find.
 */

export interface OpenAITextPart {
  type: "text";
  text: string;
  /** Not OpenAI's: the prompt-caching marker some clients put on parts for Anthropic models (OpenRouter's convention). */
  cache_control?: { type: "ephemeral"; ttl?: string };
}

export interface OpenAIImagePart {
  type: "image_url";
  image_url: { url: string; detail?: "auto" | "low" | "high" };
}

export interface OpenAIFilePart {
  type: "file";
  file: { file_data?: string; file_id?: string; filename?: string };
}

export type OpenAIContentPart = OpenAITextPart | OpenAIImagePart | OpenAIFilePart;

export interface OpenAIToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type OpenAIChatMessage =
  | { role: "system" | "developer"; content: string | OpenAITextPart[] }
  | { role: "user"; content: string | OpenAIContentPart[] }
  | { role: "assistant"; content: string | OpenAITextPart[] | null; tool_calls?: OpenAIToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string | OpenAITextPart[] };

export interface OpenAIFunctionTool {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export type OpenAIToolChoice = "auto" | "none" | "required" | { type: "function"; function: { name: string } };

export interface OpenAIChatRequest {
  model: string;
  messages: OpenAIChatMessage[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string | string[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: OpenAIFunctionTool[];
  tool_choice?: OpenAIToolChoice;
  parallel_tool_calls?: boolean;
  user?: string;
}

export interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
}
