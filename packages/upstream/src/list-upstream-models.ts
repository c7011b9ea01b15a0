import { adapterFor, describeAdapter } from "./adapters";
import { readUpstreamErrorText, readUpstreamText, UpstreamRedirectError, UpstreamResponseTooLargeError } from "./fetch-upstream";
import { type AdapterChannel, UpstreamAuthorizationError } from "./provider-adapter";
import { sendUpstream, upstreamAuthorizationFailure } from "./send-upstream";
import { ListingFailure } from "./shared/model-list-page";
import { scrubSecret } from "./shared/scrub-secret";

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

/** GET a JSON page; an error status becomes the adapter's reading of the upstream's error body (key scrubbed). */
async function getJson(channel: ModelListChannel, url: string, headers: Record<string, string>, signal: AbortSignal): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await sendUpstream(adapterFor(channel.type), channel, { method: "GET", url, headers: { accept: "application/json", ...headers } }, signal);
  } catch (error) {
    if (error instanceof UpstreamRedirectError) throw new ListingFailure(error.message, error.status);
    if (error instanceof UpstreamAuthorizationError) throw new ListingFailure(upstreamAuthorizationFailure(error, channel).message, null);
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

/**
 * The models an upstream serves, by its own list call, for the console's "Fetch models" and the CLI's
 * `channel models`: sorted, without duplicates. Never throws: a refusal, a network failure or an answer
 * that is not a model list comes back as `{ ok: false, error }`, with the channel key scrubbed from it.
 */
export async function listUpstreamModels(channel: ModelListChannel, options: ModelListOptions = {}): Promise<ModelListResult> {
  const adapter = adapterFor(channel.type);
  if (!adapter.listModels) {
    return { ok: false, error: describeAdapter(adapter).cannotListModelsReason ?? "", status: null, unsupported: true };
  }
  const normalized = { ...channel, baseUrl: channel.baseUrl.replace(/\/+$/, "") };
  const signal = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const pages = { getJson: (url: string, headers: Record<string, string>) => getJson(normalized, url, headers, signal), maxPages: options.maxPages ?? DEFAULT_MAX_PAGES };
  try {
    const models = await adapter.listModels(normalized, pages);
    return { ok: true, models: [...new Set(models)].sort() };
  } catch (error) {
    if (error instanceof ListingFailure) return { ok: false, error: scrubSecret(error.message, channel.apiKey).slice(0, 500), status: error.status, unsupported: false };
    const reason = signal.aborted
      ? `No answer within ${Math.round((options.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000)} s`
      : `Could not reach the upstream: ${error instanceof Error ? error.message : String(error)}`;
    return { ok: false, error: scrubSecret(reason, channel.apiKey).slice(0, 500), status: null, unsupported: false };
  }
}
