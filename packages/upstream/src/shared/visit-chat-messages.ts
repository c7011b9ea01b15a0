import { clientValueText, isRecord } from "@tollgate/shared";
import { TranslationError } from "../provider-adapter";

type ChatMessage = Record<string, unknown>;

/** What a translator does with each role of OpenAI's `messages` (`system` also receives `developer`). */
export interface ChatMessageVisitor {
  system(message: ChatMessage, param: string): void;
  user(message: ChatMessage, param: string): void;
  assistant(message: ChatMessage, param: string): void;
  tool(message: ChatMessage, param: string): void;
}

/**
 * Walks OpenAI's `messages` in order and hands each one, with its param path (`messages[3]`), to the visitor's
 * member for its role. A non-array, a non-object entry or a role the visitor has no member for is refused
 * with the TranslationError that names it, in the provider's words ("... not supported for <provider> models").
 */
export function visitChatMessages(messages: unknown, providerName: string, visitor: ChatMessageVisitor): void {
  if (!Array.isArray(messages)) throw new TranslationError("'messages' must be an array.", "messages");
  messages.forEach((message, index) => {
    const param = `messages[${index}]`;
    if (!isRecord(message)) throw new TranslationError(`'${param}' must be an object.`, param);
    const role = message.role === "developer" ? "system" : message.role;
    if (role !== "system" && role !== "user" && role !== "assistant" && role !== "tool") {
      throw new TranslationError(`Messages with role '${clientValueText(message.role)}' are not supported for ${providerName} models.`, `${param}.role`);
    }
    visitor[role](message, param);
  });
}
