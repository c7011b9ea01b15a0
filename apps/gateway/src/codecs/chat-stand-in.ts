import { TranslationError } from "@tollgate/upstream";
import { errors, type GatewayError } from "../errors";

/**
 * A client's native request (Anthropic's, Google's) as the chat body that other channel types are sent:
 * its translation; or, when the request is valid but part of it only its own provider speaks (a
 * TranslationError with code unsupported_parameter), the error every other channel type answers with
 * (`chatError`) and a stand-in body holding the request as text, so that routing and the local count still
 * have a prompt to work from. A malformed request (any other translation error) is refused at once.
 */
export function chatBodyOrStandIn(
  model: string,
  translate: () => Record<string, unknown>,
  /** The parts of the native request that make its prompt, counted as text by the stand-in. */
  promptParts: () => Record<string, unknown>,
): { openAIBody: Record<string, unknown>; chatError: GatewayError | null } {
  try {
    return { openAIBody: translate(), chatError: null };
  } catch (error) {
    if (!(error instanceof TranslationError)) throw error;
    if (error.code !== "unsupported_parameter") throw errors.untranslatable(error);
    return { openAIBody: { model, messages: [{ role: "user", content: JSON.stringify(promptParts()) }] }, chatError: errors.untranslatable(error) };
  }
}
