import { adapterFor } from "./adapters";
import { fetchUpstream, readUpstreamErrorText, readUpstreamText, UpstreamRedirectError, UpstreamResponseTooLargeError } from "./fetch-upstream";
import { anthropicApiUrl, anthropicVersion } from "./anthropic/build-request";
import type { AdapterChannel } from "./provider-adapter";
import { scrubSecret } from "./shared/scrub-secret";
import { channelExtraHeaders } from "./shared/channel-headers";

/** A channel as the model list call needs it: saved, or the values of a form not yet saved. */
export interface ModelListChannel extends AdapterChannel {
  type: string;
}

export type ModelListResult =
  | { ok: true; models: string[] }
  /** `unsupported`: the channel type has no list call a key can make (Azure OpenAI's deployments). */
  | { ok: false; error: string; status: number | null; unsupported: boolean };

export interface ModelListOptions {
  /** Default 20 s for the whole listing, every page included. */
  timeoutMs?: number;
  /** Most pages followed (Anthropic's and Gemini's paging), so that a misbehaving upstream cannot loop forever. */
  maxPages?: number;
}

const DEFAULT_TIMEOUT_MS = 20_000;
const DEFAULT_MAX_PAGES = 20;
/** The most one page of a model list may weigh (OpenRouter's full list, descriptions included, is a few MB). */
const MAX_PAGE_BYTES = 16 * 1024 * 1024;

/** Thrown inside a listing to stop it with the message the admin sees. */
class ListingFailure extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

/** GET a JSON page; an error status becomes the adapter's reading of the upstream's error body (key scrubbed). */
async function getJson(channel: ModelListChannel, url: string, headers: Record<string, string>, signal: AbortSignal): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetchUpstream(url, { method: "GET", headers: { accept: "application/json", ...headers }, signal });
  } catch (error) {
    if (error instanceof UpstreamRedirectError) throw new ListingFailure(error.message, error.status);
    throw error;
  }
  if (!response.ok) {
    const mapped = adapterFor(channel.type).mapError(response.status, await readUpstreamErrorText(response), channel);
    throw new ListingFailure(`The upstream answered ${response.status}: ${mapped.message}`, response.status);
  }
  let text: string;
  try {
    text = await readUpstreamText(response, MAX_PAGE_BYTES);
  } catch (error) {
    if (error instanceof UpstreamResponseTooLargeError) throw new ListingFailure(error.message, response.status);
    throw error;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Reported below, as any answer that is not a JSON object.
  }
  throw new ListingFailure("The upstream's answer is not a model list (expected a JSON object)", response.status);
}

function arrayField(page: Record<string, unknown>, field: string): unknown[] {
  const value = page[field];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new ListingFailure(`The upstream's answer is not a model list ("${field}" is not an array)`);
  return value;
}

/** OpenAI and compatible vendors: GET {base}/models, `{"object":"list","data":[{"id":...}]}`, one page. */
async function openAICompatibleModels(channel: ModelListChannel, signal: AbortSignal): Promise<string[]> {
  const page = await getJson(channel, `${channel.baseUrl}/models`, { authorization: `Bearer ${channel.apiKey}`, ...channelExtraHeaders(channel.config) }, signal);
  if (!Array.isArray(page.data)) throw new ListingFailure('The upstream\'s answer is not a model list (no "data" array)');
  return page.data.flatMap((item) => (item && typeof item === "object" && typeof (item as { id?: unknown }).id === "string" ? [(item as { id: string }).id] : []));
}

/**
 * Anthropic: GET /v1/models with x-api-key and anthropic-version, newest first, paged by `after_id` =
 * the previous page's `last_id` while `has_more` (https://docs.anthropic.com/en/api/models-list).
 */
async function anthropicModels(channel: ModelListChannel, signal: AbortSignal, maxPages: number): Promise<string[]> {
  const url = anthropicApiUrl(channel.baseUrl, "models");
  const headers = { "x-api-key": channel.apiKey, "anthropic-version": anthropicVersion, ...channelExtraHeaders(channel.config) };
  const models: string[] = [];
  let afterId: string | null = null;
  for (let pageNumber = 0; pageNumber < maxPages; pageNumber++) {
    const query: string = `?limit=1000${afterId ? `&after_id=${encodeURIComponent(afterId)}` : ""}`;
    const page = await getJson(channel, `${url}${query}`, headers, signal);
    for (const item of arrayField(page, "data")) {
      const id = (item as { id?: unknown } | null)?.id;
      if (typeof id === "string") models.push(id);
    }
    if (page.has_more !== true || typeof page.last_id !== "string" || page.last_id === afterId) return models;
    afterId = page.last_id;
  }
  throw new ListingFailure(`The upstream kept paging past ${maxPages} pages`);
}

/**
 * Gemini: models.list, GET /v1beta/models with the key in x-goog-api-key, paged by `pageToken` =
 * `nextPageToken`; names lose their "models/" prefix and only models that support generateContent (chat)
 * are kept, so that embedding-only and other models are not offered as chat models
 * (https://ai.google.dev/api/models#method:-models.list).
 */
async function geminiModels(channel: ModelListChannel, signal: AbortSignal, maxPages: number): Promise<string[]> {
  const headers = { ...channelExtraHeaders(channel.config), "x-goog-api-key": channel.apiKey };
  const models: string[] = [];
  let pageToken: string | null = null;
  for (let pageNumber = 0; pageNumber < maxPages; pageNumber++) {
    const query: string = `?pageSize=1000${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ""}`;
    const page = await getJson(channel, `${channel.baseUrl}/v1beta/models${query}`, headers, signal);
    for (const item of arrayField(page, "models")) {
      const model = item as { name?: unknown; supportedGenerationMethods?: unknown } | null;
      if (typeof model?.name !== "string") continue;
      const methods = Array.isArray(model.supportedGenerationMethods) ? model.supportedGenerationMethods : [];
      if (!methods.includes("generateContent")) continue;
      models.push(model.name.startsWith("models/") ? model.name.slice("models/".length) : model.name);
    }
    if (typeof page.nextPageToken !== "string" || page.nextPageToken === "" || page.nextPageToken === pageToken) return models;
    pageToken = page.nextPageToken;
  }
  throw new ListingFailure(`The upstream kept paging past ${maxPages} pages`);
}

export const AZURE_CANNOT_LIST_MODELS =
  "Azure OpenAI cannot list a resource's deployments with an API key (that needs the Azure management API and " +
  "an Azure AD sign-in). Enter the deployment names as the channel's models, or map public names to them.";

/**
 * The models an upstream serves, by its own list call, for the console's "Fetch models" and the CLI's
 * `channel models`: sorted, without duplicates. Never throws: a refusal, a network failure or an answer
 * that is not a model list comes back as `{ ok: false, error }`, with the channel key scrubbed from it.
 */
export async function listUpstreamModels(channel: ModelListChannel, options: ModelListOptions = {}): Promise<ModelListResult> {
  if (channel.type === "azure-openai") return { ok: false, error: AZURE_CANNOT_LIST_MODELS, status: null, unsupported: true };
  const normalized = { ...channel, baseUrl: channel.baseUrl.replace(/\/+$/, "") };
  const signal = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  try {
    let models: string[];
    if (channel.type === "anthropic") models = await anthropicModels(normalized, signal, maxPages);
    else if (channel.type === "gemini") models = await geminiModels(normalized, signal, maxPages);
    else models = await openAICompatibleModels(normalized, signal);
    return { ok: true, models: [...new Set(models)].sort() };
  } catch (error) {
    if (error instanceof ListingFailure) return { ok: false, error: scrubSecret(error.message, channel.apiKey).slice(0, 500), status: error.status, unsupported: false };
    const reason = signal.aborted
      ? `No answer within ${Math.round((options.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000)} s`
      : `Could not reach the upstream: ${error instanceof Error ? error.message : String(error)}`;
    return { ok: false, error: scrubSecret(reason, channel.apiKey).slice(0, 500), status: null, unsupported: false };
  }
}
