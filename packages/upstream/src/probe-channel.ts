import { checkResolvedAddress, DEFAULT_UPSTREAM_ADDRESS_POLICY, type UpstreamAddressPolicy } from "@tollgate/shared";
import { adapterFor } from "./adapters";
import { readUpstreamErrorText } from "./fetch-upstream";
import { type AdapterChannel, UpstreamAuthorizationError } from "./provider-adapter";
import { sendUpstream, upstreamAuthorizationFailure } from "./send-upstream";
import { scrubSecret } from "./shared/scrub-secret";
import { upstreamModelFor } from "./upstream-model";

export interface ChannelProbeResult {
  ok: boolean;
  latencyMs: number;
  error?: string;
}

/**
 * A stored channel with its key decrypted, as packages/admin loads it: the prober is given the stored base
 * URL only, so the stored key goes to the origin it was saved for and nowhere else.
 */
export interface ChannelToProbe extends AdapterChannel {
  type: string;
  models: string[];
  modelMapping: Record<string, string> | null;
}

const PROBE_TIMEOUT_MS = 20_000;

/**
 * The console's "Test" button: one tiny real chat request (`max_tokens: 1`) for the channel's first model,
 * built by the channel's adapter as live traffic is, so it works for every channel type and exercises its
 * translation. The upstream's error is returned with the key scrubbed. It resolves the host before sending
 * the key: a name that points at a refused address gets nothing; a redirect is not followed.
 */
export function createChannelProber(policy: UpstreamAddressPolicy = DEFAULT_UPSTREAM_ADDRESS_POLICY) {
  return async (stored: ChannelToProbe): Promise<ChannelProbeResult> => {
    const model = stored.models[0];
    if (!model) return { ok: false, latencyMs: 0, error: "the channel serves no model" };
    const addressRefusal = await checkResolvedAddress(stored.baseUrl, policy);
    if (addressRefusal !== null) return { ok: false, latencyMs: 0, error: addressRefusal };
    const { apiKey } = stored;
    const channel: AdapterChannel = { baseUrl: stored.baseUrl.replace(/\/+$/, ""), apiKey, config: { ...stored.config } };
    const adapter = adapterFor(stored.type);
    const body = { model, messages: [{ role: "user", content: "ping" }], max_tokens: 1 };
    const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
    const started = performance.now();
    try {
      const request = adapter.buildChatRequest({
        channel,
        upstreamModel: upstreamModelFor({ modelMapping: stored.modelMapping ?? {} }, model),
        body,
        text: JSON.stringify(body),
        stream: false,
      });
      const response = await sendUpstream(adapter, channel, { method: "POST", ...request }, signal);
      // The answer is read only for an error's message, and only so far: an upstream's body is not trusted.
      const text = await readUpstreamErrorText(response);
      const latencyMs = Math.round(performance.now() - started);
      if (response.ok) return { ok: true, latencyMs };
      return { ok: false, latencyMs, error: `HTTP ${response.status}: ${adapter.mapError(response.status, text, channel).message}`.slice(0, 300) };
    } catch (error) {
      const latencyMs = Math.round(performance.now() - started);
      if (error instanceof UpstreamAuthorizationError) return { ok: false, latencyMs, error: upstreamAuthorizationFailure(error, channel).message.slice(0, 300) };
      const reason = signal.aborted ? "no answer within 20 s" : error instanceof Error ? error.message : String(error);
      return { ok: false, latencyMs, error: scrubSecret(reason, apiKey).slice(0, 300) };
    }
  };
}
