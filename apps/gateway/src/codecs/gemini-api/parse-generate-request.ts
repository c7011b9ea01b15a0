import { isRecord } from "@tollgate/shared";
import type { JsonBody } from "../../routes/read-json-body";
import { errors, type GatewayError } from "../../errors";
import { chatBodyOrStandIn } from "../chat-stand-in";
import type { ChatRequest } from "../openai-chat/prepare-chat-attempt";
import { geminiRequestToOpenAI } from "./gemini-request-to-openai";

/** A GenerateContentRequest as the Gemini codecs hold it: as it came (for Gemini channels) and translated (for the others). */
export interface GenerateRequest {
  model: string;
  /** The client's body and its text, relayed as they are to a channel that speaks the Gemini API. */
  body: Record<string, unknown>;
  text: string;
  /**
   * The same request in OpenAI's chat format, for every other channel type and for local counts. When it
   * cannot be translated (Google's built-in tools, cached content, ...), `chatError` is what such a channel
   * answers, and the body holds the request as one text, for a local count only.
   */
  chat: ChatRequest;
  chatError: GatewayError | null;
}

/** The client's contents, checked: a GenerateContentRequest without them is the client's error wherever it goes. */
function checkContents(body: Record<string, unknown>): void {
  if (body.contents === undefined || body.contents === null) throw errors.missingParameter("contents");
  if (!Array.isArray(body.contents) || body.contents.length === 0 || !body.contents.every(isRecord)) {
    throw errors.invalidParameter("contents", "'contents' must be a non-empty array of Content objects.");
  }
}

/** A GenerateContentRequest (generateContent, streamGenerateContent, countTokens' generateContentRequest) read for routing. */
export function parseGenerateRequest(json: JsonBody, model: string, stream: boolean): GenerateRequest {
  const body = json.value;
  checkContents(body);
  // Valid, but only Gemini speaks it: Gemini channels take it as it is.
  const { openAIBody, chatError } = chatBodyOrStandIn(
    model,
    () => geminiRequestToOpenAI(body, model, stream),
    () => ({ systemInstruction: body.systemInstruction, contents: body.contents, tools: body.tools }),
  );
  return { model, body, text: json.text, chat: { body: openAIBody, model, stream, clientWantsUsage: true, path: "/chat/completions" }, chatError };
}

/** generationConfig's numeric field, when the client set one. */
export function generationNumber(body: Record<string, unknown>, name: string): number | null {
  const config = body.generationConfig;
  const value = isRecord(config) ? config[name] : undefined;
  return typeof value === "number" && Number.isInteger(value) && value >= 1 ? value : null;
}
