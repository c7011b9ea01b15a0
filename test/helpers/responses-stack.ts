import type { requestLogs } from "@tollgate/db";
import { type FakeAnthropicUpstream, startFakeAnthropicUpstream } from "./fake-anthropic-upstream";
import { type FakeGeminiUpstream, startFakeGeminiUpstream } from "./fake-gemini-upstream";
import { type FakeOpenAIResponsesUpstream, startFakeOpenAIResponsesUpstream } from "./fake-openai-responses-upstream";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./fake-openai-upstream";
import type { FreshDatabase } from "./fresh-database";
import { type GatewayUnderTest, type seeder, startStackWith } from "./gateway-fixture";

/** The models of a ResponsesStack: a chat-only vendor, a native Responses channel, Claude, Gemini. */
export const stackModels = { chatOnly: "deepseek-chat", native: "gpt-4o", claude: "claude-sonnet-4-5", gemini: "gemini-2.5-flash" } as const;

/** A gateway listening on a fresh database with a chat-only, a native Responses, an Anthropic and a Gemini channel. */
export interface ResponsesStack {
  database: FreshDatabase;
  gateway: GatewayUnderTest;
  /** The gateway's base URL, with /v1. */
  baseURL: string;
  chatOnly: FakeOpenAIUpstream;
  native: FakeOpenAIResponsesUpstream;
  anthropic: FakeAnthropicUpstream;
  gemini: FakeGeminiUpstream;
  seed: ReturnType<typeof seeder>;
  userId: number;
  /** The last request-log row of a token, once the write-behind has written it. */
  lastLog(tokenId: number): Promise<typeof requestLogs.$inferSelect>;
  stop(): Promise<void>;
}

export async function startResponsesStack(): Promise<ResponsesStack> {
  const stack = await startStackWith(async (keep) => ({
    chatOnly: await keep(startFakeOpenAIUpstream()),
    native: await keep(startFakeOpenAIResponsesUpstream()),
    anthropic: await keep(startFakeAnthropicUpstream()),
    gemini: await keep(startFakeGeminiUpstream()),
  }));
  const { database, gateway, seed, userId, fakes } = stack;
  const baseURL = await gateway.listen();
  await seed.channel({ name: "deepseek", baseUrl: fakes.chatOnly.url, models: [stackModels.chatOnly], config: { preset: "deepseek" } });
  await seed.channel({ name: "openai", baseUrl: fakes.native.url, models: [stackModels.native], config: { preset: "openai" } });
  await seed.channel({ name: "claude", type: "anthropic", baseUrl: fakes.anthropic.url, models: [stackModels.claude] });
  await seed.channel({ name: "gemini", type: "gemini", baseUrl: fakes.gemini.url, models: [stackModels.gemini] });
  return {
    database,
    gateway,
    baseURL,
    ...fakes,
    seed,
    userId,
    async lastLog(tokenId) {
      // A call is accounted after its last byte (a local count runs on the counting worker): wait for it.
      await gateway.services.calls.idle(10_000);
      return stack.lastLog(tokenId);
    },
    stop: stack.stop,
  };
}
