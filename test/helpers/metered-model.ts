import type { FakeOpenAIUpstream } from "./fake-openai-upstream";
import type { GatewayUnderTest, seeder } from "./gateway-fixture";

/**
 * The spend tests' model: a channel serving `metered` on `upstream`, whose answers spend the 1,000 completion
 * tokens that meteredChat asks for, priced with free prompts and 1 micro-USD a completion token: every call
 * costs exactly its 1,000-token bound (1,000 micro-USD).
 */
export async function seedMeteredModel(seed: ReturnType<typeof seeder>, upstream: FakeOpenAIUpstream): Promise<void> {
  upstream.setDefault({ kind: "ok", promptTokens: 10, completionTokens: 1000 });
  await seed.channel({ baseUrl: upstream.url, models: ["metered"] });
  await seed.price("metered", 0, 1);
}

/** One chat completion of the metered model by `key` through `gateway`, bounded at 1,000 completion tokens. */
export function meteredChat(gateway: GatewayUnderTest, key: string): Promise<Response> {
  return gateway.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "metered", max_tokens: 1000, messages: [{ role: "user", content: "hi" }] }),
    }),
  );
}
