/**
 * The parts of the Gemini API (v1beta, generativelanguage.googleapis.com) wire format this adapter reads and
 * writes. Field names are the REST JSON names (camelCase), as in https://ai.google.dev/api/generate-content.
 */

export interface GeminiFunctionCall {
  name: string;
  args?: Record<string, unknown>;
}

export interface GeminiPart {
  text?: string;
  /** True on thought-summary parts (only sent with generationConfig.thinkingConfig.includeThoughts). */
  thought?: boolean;
  /** Opaque, base64; Gemini 3 requires it back on the first functionCall part of a step. */
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType?: string; fileUri: string };
  functionCall?: GeminiFunctionCall;
  functionResponse?: { name: string; response: Record<string, unknown> };
}

export interface GeminiContent {
  role?: "user" | "model";
  parts?: GeminiPart[];
}

export interface GeminiCandidate {
  content?: GeminiContent;
  /** STOP, MAX_TOKENS, SAFETY, RECITATION, LANGUAGE, OTHER, BLOCKLIST, PROHIBITED_CONTENT, SPII, MALFORMED_FUNCTION_CALL, ... */
  finishReason?: string;
  index?: number;
}

export interface GeminiUsageMetadata {
  /** Includes the cached part of the prompt. */
  promptTokenCount?: number;
  /** Excludes thoughts. */
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
  /** Prompt tokens of tool results the model fetched itself (e.g. Google Search grounding); billed as input. */
  toolUsePromptTokenCount?: number;
  totalTokenCount?: number;
}

/** A generateContent answer, and also each event of streamGenerateContent?alt=sse. */
export interface GeminiGenerateContentResponse {
  candidates?: GeminiCandidate[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: GeminiUsageMetadata;
  modelVersion?: string;
  responseId?: string;
}

/** Google's error envelope (google.rpc.Status), for every non-2xx answer. */
export interface GeminiErrorBody {
  error?: {
    code?: number;
    message?: string;
    /** INVALID_ARGUMENT, FAILED_PRECONDITION, PERMISSION_DENIED, NOT_FOUND, RESOURCE_EXHAUSTED, INTERNAL, UNAVAILABLE, ... */
    status?: string;
    details?: Array<Record<string, unknown>>;
  };
}
