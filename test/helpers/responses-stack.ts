import { requestLogs } from "@tollgate/db";
import { asc, eq } from "drizzle-orm";
import { type FakeAnthropicUpstream, startFakeAnthropicUpstream } from "./fake-anthropic-upstream";
import { type FakeGeminiUpstream, startFakeGeminiUpstream } from "./fake-gemini-upstream";
import { type FakeOpenAIResponsesUpstream, startFakeOpenAIResponsesUpstream } from "./fake-openai-responses-upstream";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./fake-openai-upstream";
import { type FreshDatabase, freshDatabase } from "./fresh-database";
import { type GatewayUnderTest, seeder, startGateway } from "./gateway-fixture";

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
  const database = await freshDatabase();
  const chatOnly = await startFakeOpenAIUpstream();
  const native = await startFakeOpenAIResponsesUpstream();
  const anthropic = await startFakeAnthropicUpstream();
  const gemini = await startFakeGeminiUpstream();
  const gateway = await startGateway(database.handle);
  const baseURL = await gateway.listen();
  const seed = seeder(database.handle, gateway.secretBox, [gateway]);
  const userId = (await seed.user()).id;
  await seed.channel({ name: "deepseek", baseUrl: chatOnly.url, models: [stackModels.chatOnly], config: { preset: "deepseek" } });
  await seed.channel({ name: "openai", baseUrl: native.url, models: [stackModels.native], config: { preset: "openai" } });
  await seed.channel({ name: "claude", type: "anthropic", baseUrl: anthropic.url, models: [stackModels.claude] });
  await seed.channel({ name: "gemini", type: "gemini", baseUrl: gemini.url, models: [stackModels.gemini] });
  return {
    database,
    gateway,
    baseURL,
    chatOnly,
    native,
    anthropic,
    gemini,
    seed,
    userId,
    async lastLog(tokenId) {
      // A call is accounted after its last byte (a local count runs on the counting worker): wait for it.
      await gateway.services.calls.idle(10_000);
      await gateway.services.usage.flush();
      const logs = await database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, tokenId)).orderBy(asc(requestLogs.id));
      return logs.at(-1)!;
    },
    async stop() {
      await gateway.stop();
      await chatOnly.close();
      await native.close();
      await anthropic.close();
      await gemini.close();
      await database.drop();
    },
  };
}
