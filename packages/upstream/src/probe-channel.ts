import { channels, type Database } from "@tollgate/db";
import { channelKeyBinding, checkResolvedAddress, DEFAULT_UPSTREAM_ADDRESS_POLICY, type SecretBox, type UpstreamAddressPolicy } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import { adapterFor } from "./adapters";
import { fetchUpstream, readUpstreamErrorText } from "./fetch-upstream";
import type { AdapterChannel } from "./provider-adapter";
import { scrubSecret } from "./shared/scrub-secret";
import { upstreamModelFor } from "./upstream-model";

export interface ChannelProbeResult {
  ok: boolean;
  latencyMs: number;
  error?: string;
}

const PROBE_TIMEOUT_MS = 20_000;

/**
 * The console's "Test" button: one tiny real chat request (`max_tokens: 1`) for the channel's first model,
 * built by the channel's adapter as live traffic is, so it works for every channel type and exercises its
 * translation. The upstream's error is returned with the key scrubbed. It always probes the stored base URL
 * (the console saves a changed address first, and a changed origin takes the key again), and resolves the
 * host before sending the key: a name that points at a refused address gets nothing.
 */
export function createChannelProber(db: Database, secretBox: SecretBox, policy: UpstreamAddressPolicy = DEFAULT_UPSTREAM_ADDRESS_POLICY) {
  return async (channelId: number): Promise<ChannelProbeResult> => {
    const [row] = await db.select().from(channels).where(eq(channels.id, channelId)).limit(1);
    if (!row) return { ok: false, latencyMs: 0, error: "unknown channel" };
    const model = row.models[0];
    if (!model) return { ok: false, latencyMs: 0, error: "the channel serves no model" };
    let apiKey: string;
    try {
      apiKey = await secretBox.decrypt(row.apiKeyEncrypted, channelKeyBinding(row.id));
    } catch {
      return { ok: false, latencyMs: 0, error: "the key cannot be decrypted (was TOLLGATE_SECRET changed?)" };
    }
    const addressRefusal = await checkResolvedAddress(row.baseUrl, policy);
    if (addressRefusal !== null) return { ok: false, latencyMs: 0, error: addressRefusal };
    const channel: AdapterChannel = { baseUrl: row.baseUrl.replace(/\/+$/, ""), apiKey, config: { ...row.config } };
    const adapter = adapterFor(row.type);
    const body = { model, messages: [{ role: "user", content: "ping" }], max_tokens: 1 };
    const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
    const started = performance.now();
    try {
      const request = adapter.buildChatRequest({
        channel,
        upstreamModel: upstreamModelFor({ modelMapping: row.modelMapping ?? {} }, model),
        body,
        text: JSON.stringify(body),
        stream: false,
      });
      const response = await fetchUpstream(request.url, { method: "POST", headers: request.headers, body: request.body, signal });
      // The answer is read only for an error's message, and only so far: an upstream's body is not trusted.
      const text = await readUpstreamErrorText(response);
      const latencyMs = Math.round(performance.now() - started);
      if (response.ok) return { ok: true, latencyMs };
      return { ok: false, latencyMs, error: `HTTP ${response.status}: ${adapter.mapError(response.status, text, channel).message}`.slice(0, 300) };
    } catch (error) {
      const latencyMs = Math.round(performance.now() - started);
      const reason = signal.aborted ? "no answer within 20 s" : error instanceof Error ? error.message : String(error);
      return { ok: false, latencyMs, error: scrubSecret(reason, apiKey).slice(0, 300) };
    }
  };
}
