/**
 * Ids for what Gemini leaves unnamed. Derived from Gemini's `responseId` when there is one, so that tool call
 * ids stay unique across the turns of a conversation (clients key tool results by them); a random id
 * otherwise.
 */
export function responseKey(responseId: unknown): string {
  return typeof responseId === "string" && responseId !== "" ? responseId : crypto.randomUUID().replaceAll("-", "");
}

export function completionId(key: string): string {
  return `chatcmpl-${key}`;
}

/** `call_<responseKey>_<n>`, n counting the function calls of one response from 0. */
export function toolCallId(key: string, ordinal: number): string {
  return `call_${key}_${ordinal}`;
}
