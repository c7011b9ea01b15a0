import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { settings, tokens, users } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type GatewayStack, startGatewayStack, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

/**
 * Changes that no notification reports (here the notify triggers are dropped in this file's own database;
 * in production, a stalled LISTEN connection loses them the same way) are still seen once the cached copy
 * is older than the max age.
 */
const MAX_AGE_MS = 200;
/** A bound on a hang only: each test waits for its condition, and the max age makes it come within a second. */
const WAIT_LIMIT_MS = 15_000;

let stack: GatewayStack;

function chat(key: string, model = "gpt-4o-mini") {
  return stack.gateway.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
    }),
  );
}

async function errorCode(response: Response): Promise<string | null> {
  return ((await response.json()) as { error?: { code: string | null } }).error?.code ?? null;
}

beforeAll(async () => {
  stack = await startGatewayStack({ gateway: { cacheMaxAgeMs: MAX_AGE_MS } });
  await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["gpt-4o-mini"] });
  await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["bound-model"], name: "bound" });
  await stack.seed.price("gpt-4o-mini", 1, 1);
  // From here on, writes reach the gateway only through its max age.
  await stack.database.handle.execute(
    ["tokens", "users", "channels", "model_prices", "settings"].map((table) => `drop trigger ${table}_notify on ${table};`).join("\n"),
  );
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

describe("revocation with an upper bound", () => {
  test("a token disabled without a notification is refused once its cached copy is past the max age", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    expect((await chat(token.secret)).status).toBe(200);
    await stack.database.handle.db.update(tokens).set({ status: "disabled" }).where(eq(tokens.id, token.row.id));
    const refused = await waitFor(async () => {
      const response = await chat(token.secret);
      return response.status === 401 ? response : null;
    }, "the disabled token to be refused", WAIT_LIMIT_MS);
    expect(await errorCode(refused)).toBe("token_disabled");
  });

  test("a token deleted without a notification is refused as unknown", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    expect((await chat(token.secret, "bound-model")).status).toBe(200);
    await stack.gateway.services.usage.flush();
    await stack.database.handle.db.delete(tokens).where(eq(tokens.id, token.row.id));
    const refused = await waitFor(async () => {
      const response = await chat(token.secret, "bound-model");
      return response.status === 401 ? response : null;
    }, "the deleted token to be refused", WAIT_LIMIT_MS);
    expect(await errorCode(refused)).toBe("invalid_api_key");
  });

  test("a user disabled without a notification is refused once the cached user is past the max age", async () => {
    const owner = await stack.seed.user();
    const token = await stack.seed.token({ userId: owner.id });
    expect((await chat(token.secret)).status).toBe(200);
    await stack.database.handle.db.update(users).set({ status: "disabled" }).where(eq(users.id, owner.id));
    const refused = await waitFor(async () => {
      const response = await chat(token.secret);
      return response.status === 401 ? response : null;
    }, "the disabled user to be refused", WAIT_LIMIT_MS);
    expect(await errorCode(refused)).toBe("user_disabled");
  });

  test("a channel disabled without a notification stops being routed after the max age", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    expect((await chat(token.secret, "bound-model")).status).toBe(200);
    await stack.database.handle.execute(`update channels set status = 'disabled' where name = 'bound'`);
    const refused = await waitFor(async () => {
      const response = await chat(token.secret, "bound-model");
      return response.status === 503 ? response : null;
    }, "the disabled channel to be skipped", WAIT_LIMIT_MS);
    expect(await errorCode(refused)).toBe("no_available_channel");
  });

  test("a setting changed without a notification is applied after the max age", async () => {
    // 1 USD of quota covers the default reservation (4,096 completion tokens at 1 USD per million) many
    // thousand times over, and never a reservation of 2 million tokens.
    const token = await stack.seed.token({ userId: stack.userId, quotaLimit: 1_000_000 });
    expect((await chat(token.secret)).status).toBe(200);
    await stack.database.handle.db.insert(settings).values({ key: "reservation_default_max_tokens", value: 2_000_000 });
    const refused = await waitFor(async () => {
      const response = await chat(token.secret);
      return response.status === 429 ? response : null;
    }, "the larger default reservation to be applied", WAIT_LIMIT_MS);
    expect(await errorCode(refused)).toBe("insufficient_quota");
  });
});
