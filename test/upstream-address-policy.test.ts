import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { channels } from "@tollgate/db";
import { channelKeyBinding } from "@tollgate/shared";
import { type GatewayStack, startGatewayStack, waitFor } from "./helpers/gateway-fixture";
import { nextChannelId } from "./helpers/next-channel-id";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let stack: GatewayStack;
let tokenSecret: string;

beforeAll(async () => {
  stack = await startGatewayStack({ gateway: { upstreamAddressPolicy: { allowPrivateNetworks: false } } });
  tokenSecret = (await stack.seed.token({ userId: stack.userId })).secret;
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.stop();
}, SETUP_TIMEOUT_MS);

/** A channel row written straight to the database (by hand, or saved before the policy was tightened). */
async function insertChannel(baseUrl: string, model: string): Promise<void> {
  const id = await nextChannelId(stack.database.handle.db);
  const apiKeyEncrypted = await stack.gateway.secretBox.encrypt("sk-must-not-travel-0001", channelKeyBinding(id));
  await stack.database.handle.db.insert(channels).values({ id, name: model, baseUrl, apiKeyEncrypted, models: [model] });
}

describe("the gateway's upstream address policy at channel load", () => {
  test("a loopback channel is left out of the catalog when private networks are refused, and gets no request", async () => {
    await insertChannel(stack.upstream.url, "on-loopback");
    await insertChannel("http://169.254.169.254/v1", "on-metadata");
    // A public address inserted last: once it is in the catalog, the reload has seen the other two.
    await insertChannel("https://api.example.com/v1", "on-public");
    const catalog = await waitFor(async () => {
      const current = await stack.gateway.services.catalog.get();
      return current.channelsByModel.has("on-public") ? current : null;
    }, "the catalog reloaded with the new channels");
    expect(catalog.channelsByModel.has("on-loopback")).toBe(false);
    expect(catalog.channelsByModel.has("on-metadata")).toBe(false);
    const response = await stack.gateway.handle(
      new Request("http://gateway.test/v1/chat/completions", {
        method: "POST",
        headers: { authorization: `Bearer ${tokenSecret}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "on-loopback", messages: [{ role: "user", content: "hi" }] }),
      }),
    );
    expect(response.status).not.toBe(200);
    expect(stack.upstream.requests).toHaveLength(0);
  });
});
