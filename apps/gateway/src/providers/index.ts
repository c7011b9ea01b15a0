import { GatewayError } from "../errors";
import { anthropicAdapter } from "./anthropic";
import { azureOpenAIAdapter } from "./azure-openai";
import { geminiAdapter } from "./gemini";
import type { ProviderAdapter, TranslatedError } from "./provider-adapter";

/** Adapters of the non-OpenAI protocols by channel type; openai-compatible is relayed without translation. */
const adapters = new Map<string, ProviderAdapter>([
  [anthropicAdapter.type, anthropicAdapter],
  [geminiAdapter.type, geminiAdapter],
  [azureOpenAIAdapter.type, azureOpenAIAdapter],
]);

export function registerAdapter(adapter: ProviderAdapter): void {
  adapters.set(adapter.type, adapter);
}

export function adapterFor(type: string): ProviderAdapter | null {
  return adapters.get(type) ?? null;
}

/**
 * An adapter's error in our family. A 401/403 from an upstream means the channel's key is bad: that is
 * the operator's problem, so the caller sees 502 upstream_auth_failed, never an auth error of its own.
 */
export function gatewayErrorFromTranslated(translated: TranslatedError): GatewayError {
  if (translated.status === 401 || translated.status === 403) {
    return new GatewayError(`The upstream provider rejected the gateway's credentials (status ${translated.status}).`, {
      status: 502,
      code: "upstream_auth_failed",
      type: "server_error",
    });
  }
  const status = translated.status >= 400 && translated.status <= 599 ? translated.status : 502;
  return new GatewayError(translated.message, { status, code: translated.code, type: translated.type, param: translated.param });
}
