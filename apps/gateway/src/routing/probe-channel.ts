import { channels, type Database } from "@tollgate/db";
import type { SecretBox } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import { prepareChatAttempt } from "../routes/chat-attempt";
import { toRoutableChannel } from "./channel-catalog";

export interface ChannelProbeResult {
  ok: boolean;
  latencyMs: number;
  error?: string;
}

const PROBE_TIMEOUT_MS = 20_000;

/**
 * The console's "Test" button: one tiny real chat request (`max_tokens: 1`) for the channel's first model,
 * built by the same code as live traffic, so it works for every channel type and exercises its translation.
 * The upstream's error is returned with the key scrubbed.
 */
export function createChannelProber(db: Database, secretBox: SecretBox) {
  return async (channelId: number): Promise<ChannelProbeResult> => {
    const [row] = await db.select().from(channels).where(eq(channels.id, channelId)).limit(1);
    if (!row) return { ok: false, latencyMs: 0, error: "unknown channel" };
    const model = row.models[0];
    if (!model) return { ok: false, latencyMs: 0, error: "the channel serves no model" };
    let apiKey: string;
    try {
      apiKey = await secretBox.decrypt(row.apiKeyEncrypted);
    } catch {
      return { ok: false, latencyMs: 0, error: "the key cannot be decrypted (was TOLLGATE_SECRET changed?)" };
    }
    const channel = toRoutableChannel(row, apiKey);
    const body = { model, messages: [{ role: "user", content: "ping" }], max_tokens: 1 };
    const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
    const started = performance.now();
    try {
      const attempt = prepareChatAttempt(
        channel,
        { body, text: JSON.stringify(body), model, stream: false, clientWantsUsage: false, path: "/chat/completions" },
        signal,
      );
      const response = await fetch(attempt.url, attempt.init);
      const text = await response.text();
      const latencyMs = Math.round(performance.now() - started);
      if (response.ok) return { ok: true, latencyMs };
      return { ok: false, latencyMs, error: `HTTP ${response.status}: ${attempt.mapError(response.status, text).message}`.slice(0, 300) };
    } catch (error) {
      const latencyMs = Math.round(performance.now() - started);
      const reason = signal.aborted ? "no answer within 20 s" : error instanceof Error ? error.message : String(error);
      return { ok: false, latencyMs, error: reason.split(apiKey).join("***").slice(0, 300) };
    }
  };
}
