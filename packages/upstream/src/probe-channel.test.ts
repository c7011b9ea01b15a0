import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type FakeAnthropicUpstream, startFakeAnthropicUpstream } from "../../../test/helpers/fake-anthropic-upstream";
import { LOCATION_SECRET, startFakeHostileUpstream } from "../../../test/helpers/fake-hostile-upstream";
import { SETUP_TIMEOUT_MS } from "../../../test/helpers/timeouts";
import { type ChannelToProbe, createChannelProber } from "./probe-channel";

let anthropic: FakeAnthropicUpstream;

beforeAll(async () => {
  anthropic = await startFakeAnthropicUpstream({ requireApiKey: "sk-ant-right" });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await anthropic?.close();
}, SETUP_TIMEOUT_MS);

/** A stored channel as packages/admin hands it over: loaded and its key decrypted. */
function storedChannel(baseUrl: string, apiKey: string, fields: Partial<ChannelToProbe> = {}): ChannelToProbe {
  return { type: "anthropic", baseUrl, apiKey, config: {}, models: ["claude"], modelMapping: null, ...fields };
}

describe("channel probe", () => {
  test("a channel of a translated type is probed through its own protocol", async () => {
    const probe = createChannelProber();
    const passed = await probe(storedChannel(anthropic.url, "sk-ant-right", { modelMapping: { claude: "claude-upstream" } }));
    expect(passed.ok).toBe(true);
    expect(anthropic.requests.at(-1)!.body).toMatchObject({ model: "claude-upstream", max_tokens: 1 });
    const failed = await probe(storedChannel(anthropic.url, "sk-ant-wrong-key"));
    expect(failed.ok).toBe(false);
    expect(failed.error).toContain("HTTP 401");
    expect(failed.error).not.toContain("sk-ant-wrong-key");
    expect(await probe(storedChannel(anthropic.url, "sk-ant-right", { models: [] }))).toEqual({ ok: false, latencyMs: 0, error: "the channel serves no model" });
  });

  test("an upstream that redirects fails the probe, and the key never reaches the host it names", async () => {
    const hostile = await startFakeHostileUpstream();
    try {
      hostile.setMode({ kind: "redirect", status: 307 });
      const result = await createChannelProber()(storedChannel(hostile.origin, "sk-ant-probed-key"));
      expect(result.ok).toBe(false);
      expect(result.error).toContain("redirect");
      expect(result.error).not.toContain(LOCATION_SECRET);
      expect(hostile.requests.at(-1)!.headers["x-api-key"]).toBe("sk-ant-probed-key");
      expect(hostile.recorder.requests).toEqual([]);
    } finally {
      await hostile.close();
    }
  });

  test("a host that resolves to a refused address gets no request and never the key", async () => {
    const before = anthropic.requests.length;
    const result = await createChannelProber({ allowPrivateNetworks: false })(storedChannel(anthropic.url, "sk-ant-right"));
    expect(result.ok).toBe(false);
    expect(result.error).toContain("private-network");
    expect(anthropic.requests.length).toBe(before);
  });
});
