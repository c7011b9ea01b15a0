import { channels, type Database } from "@tollgate/db";
import type { SecretBox } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import type { ChannelTestResult } from "./trpc";

const TEST_TIMEOUT_MS = 20_000;
const MAX_ERROR_LENGTH = 300;

/** An upstream's error text without the key (some upstreams echo part of it back). */
function describeFailure(text: string, apiKey: string): string {
  const scrubbed = apiKey.length >= 4 ? text.replaceAll(apiKey, "***") : text;
  return scrubbed.length > MAX_ERROR_LENGTH ? `${scrubbed.slice(0, MAX_ERROR_LENGTH)}…` : scrubbed;
}

async function upstreamErrorText(response: Response): Promise<string> {
  const body = await response.text().catch(() => "");
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof parsed.error === "string" ? parsed.error : parsed.error?.message ?? parsed.message;
    if (typeof message === "string" && message !== "") return `HTTP ${response.status}: ${message}`;
  } catch {}
  return `HTTP ${response.status}${body ? `: ${body.replace(/\s+/g, " ").trim()}` : ""}`;
}

/**
 * The default channel test: one tiny OpenAI-compatible chat completion (`max_tokens: 1`) for the
 * channel's first model, timed from the request to the response headers and body.
 */
export function createDefaultChannelTester(db: Database, secretBox: SecretBox) {
  return async (channelId: number): Promise<ChannelTestResult> => {
    const [channel] = await db
      .select({
        type: channels.type,
        baseUrl: channels.baseUrl,
        apiKeyEncrypted: channels.apiKeyEncrypted,
        models: channels.models,
        modelMapping: channels.modelMapping,
        config: channels.config,
      })
      .from(channels)
      .where(eq(channels.id, channelId))
      .limit(1);
    if (!channel) return { ok: false, latencyMs: 0, error: "unknown channel" };
    if (channel.type !== "openai-compatible") {
      return { ok: false, latencyMs: 0, error: `testing ${channel.type} channels is not supported by this console` };
    }
    const model = channel.models[0];
    if (!model) return { ok: false, latencyMs: 0, error: "the channel serves no model" };
    let apiKey: string;
    try {
      apiKey = await secretBox.decrypt(channel.apiKeyEncrypted);
    } catch {
      return { ok: false, latencyMs: 0, error: "the key cannot be decrypted (was TOLLGATE_SECRET changed?)" };
    }
    const started = performance.now();
    try {
      const response = await fetch(`${channel.baseUrl}/chat/completions`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${apiKey}`,
          ...channel.config.headers,
        },
        body: JSON.stringify({
          model: channel.modelMapping[model] ?? model,
          messages: [{ role: "user", content: "ping" }],
          max_tokens: 1,
        }),
        signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
      });
      if (!response.ok) {
        const error = describeFailure(await upstreamErrorText(response), apiKey);
        return { ok: false, latencyMs: Math.round(performance.now() - started), error };
      }
      await response.arrayBuffer();
      return { ok: true, latencyMs: Math.round(performance.now() - started) };
    } catch (error) {
      const latencyMs = Math.round(performance.now() - started);
      const reason = (error as Error).name === "TimeoutError" ? `no answer within ${TEST_TIMEOUT_MS / 1000} s` : String((error as Error).message ?? error);
      return { ok: false, latencyMs, error: describeFailure(`could not reach the upstream: ${reason}`, apiKey) };
    }
  };
}
