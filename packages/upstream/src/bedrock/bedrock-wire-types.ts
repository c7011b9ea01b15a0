/**
 * The parts of Bedrock Runtime's Converse API that the adapter writes and reads
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html): JSON over REST,
 * blobs (image and document bytes) as base64 strings.
 */
export type ConverseContentBlock =
  | { text: string }
  | { image: { format: string; source: { bytes: string } } }
  | { document: { format: string; name: string; source: { bytes: string } } }
  | { toolUse: { toolUseId: string; name: string; input: unknown } }
  | { toolResult: { toolUseId: string; content: Array<{ text: string }>; status?: "success" | "error" } }
  | { cachePoint: { type: "default" } }
  | { reasoningContent: { reasoningText?: { text: string; signature?: string } } };

export interface ConverseMessage {
  role: "user" | "assistant";
  content: ConverseContentBlock[];
}

export type ConverseSystemBlock = { text: string } | { cachePoint: { type: "default" } };

export type ConverseTool = { toolSpec: { name: string; description?: string; inputSchema: { json: Record<string, unknown> } } } | { cachePoint: { type: "default" } };

export type ConverseToolChoice = { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };

export interface ConverseRequest {
  messages: ConverseMessage[];
  system?: ConverseSystemBlock[];
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: { tools: ConverseTool[]; toolChoice?: ConverseToolChoice };
}

/** Converse's `usage` (ConverseStream's `metadata.usage`): inputTokens leaves out the cache reads and writes. */
export interface ConverseUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

export interface ConverseResponse {
  output?: { message?: { role?: string; content?: Array<Record<string, any>> } };
  stopReason?: string;
  usage?: ConverseUsage;
}
