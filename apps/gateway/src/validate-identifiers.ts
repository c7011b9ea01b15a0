import { isRecord } from "@tollgate/shared";
import { errors } from "./errors";

/**
 * Bounds on the names and ids a client sends, checked at the edge before any of them reaches a lookup, a
 * log line, a request-log row or an error message. A NUL byte cannot be stored in a Postgres text column
 * (the row would fail its batch), and a model name of megabytes would be echoed and logged in full.
 */
export const identifierLimits = {
  /** Model names in use are under 100 characters (the longest Bedrock/OpenRouter ids); 256 leaves room. */
  model: 256,
  /** OpenAI's `user`, and Anthropic's `metadata.user_id` (Anthropic documents 256). */
  user: 256,
  /** A chat message's `name` (OpenAI's participant names; function names are 64 at most upstream). */
  messageName: 256,
  /** OpenAI's own limits on `metadata`: 16 pairs, keys up to 64 characters, values up to 512. */
  metadataPairs: 16,
  metadataKey: 64,
  metadataValue: 512,
} as const;

// C0 controls (NUL, newline, escape ...), DEL and the C1 controls.
const controlCharacter = /[\u0000-\u001f\u007f-\u009f]/;

/** What makes `value` unfit as an identifier of at most `maxLength` characters, or null when nothing does. */
export function identifierProblem(value: string, maxLength: number): string | null {
  if (value.length > maxLength) return `is longer than ${maxLength} characters`;
  if (controlCharacter.test(value)) return "contains a control character";
  if (!value.isWellFormed()) return "is not well-formed Unicode";
  return null;
}

/** Throws a 400 invalid_value naming `param` unless `value` is a string that passes identifierProblem(). */
export function checkIdentifier(value: unknown, param: string, maxLength: number): void {
  if (typeof value !== "string") throw errors.invalidParameter(param, `'${param}' must be a string.`);
  const problem = identifierProblem(value, maxLength);
  if (problem) throw errors.invalidIdentifier(param, problem, value);
}

/** A model name, from a body's `model` or from the path of GET /v1/models/{id}. */
export function checkModelName(model: string): void {
  checkIdentifier(model, "model", identifierLimits.model);
}

function checkOpenAIMetadata(metadata: unknown): void {
  if (!isRecord(metadata)) throw errors.invalidParameter("metadata", "'metadata' must be an object of string values.");
  const keys = Object.keys(metadata);
  if (keys.length > identifierLimits.metadataPairs) {
    throw errors.invalidParameter("metadata", `'metadata' may hold at most ${identifierLimits.metadataPairs} pairs; it holds ${keys.length}.`);
  }
  for (const key of keys) {
    const problem = identifierProblem(key, identifierLimits.metadataKey);
    if (problem) throw errors.invalidIdentifier("metadata", `has a key that ${problem}`, key);
    const value = metadata[key];
    if (typeof value !== "string") throw errors.invalidParameter(`metadata.${key}`, `'metadata.${key}' must be a string.`);
    if (value.length > identifierLimits.metadataValue) {
      throw errors.invalidParameter(`metadata.${key}`, `'metadata.${key}' is longer than ${identifierLimits.metadataValue} characters.`);
    }
  }
}

/**
 * The identifiers of an OpenAI-format body besides its model: `user`, `metadata`, and `messages[].name`.
 * Absent and null fields are not checked (the upstream decides what it requires).
 */
export function checkOpenAIIdentifiers(body: Record<string, unknown>): void {
  if (body.user !== undefined && body.user !== null) checkIdentifier(body.user, "user", identifierLimits.user);
  if (body.metadata !== undefined && body.metadata !== null) checkOpenAIMetadata(body.metadata);
  const messages = body.messages;
  if (!Array.isArray(messages)) return;
  for (let index = 0; index < messages.length; index++) {
    const name = isRecord(messages[index]) ? (messages[index] as Record<string, unknown>).name : undefined;
    if (name !== undefined && name !== null) checkIdentifier(name, `messages[${index}].name`, identifierLimits.messageName);
  }
}

/** The identifiers of an Anthropic Messages body besides its model: `metadata.user_id`. */
export function checkAnthropicIdentifiers(body: Record<string, unknown>): void {
  const metadata = body.metadata;
  if (metadata === undefined || metadata === null) return;
  if (!isRecord(metadata)) throw errors.invalidParameter("metadata", "'metadata' must be an object.");
  if (metadata.user_id !== undefined && metadata.user_id !== null) {
    checkIdentifier(metadata.user_id, "metadata.user_id", identifierLimits.user);
  }
}
