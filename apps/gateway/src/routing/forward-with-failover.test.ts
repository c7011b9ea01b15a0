import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { adapterFor, TranslationError } from "@tollgate/upstream";
import { type HostileUpstream, startFakeHostileUpstream } from "../../../../test/helpers/fake-hostile-upstream";
import { SETUP_TIMEOUT_MS } from "../../../../test/helpers/timeouts";
import { GatewayError } from "../errors";
import { defaultGatewayOptions } from "../gateway-services";
import { silentLogger } from "../logger";
import type { RoutableChannel } from "./channel-catalog";
import { ChannelHealth } from "./channel-health";
import { forwardWithFailover, type UpstreamAttempt } from "./forward-with-failover";

let hostile: HostileUpstream;

beforeAll(async () => {
  hostile = await startFakeHostileUpstream();
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await hostile?.close();
}, SETUP_TIMEOUT_MS);

const COOLDOWN_MS = 60_000;

function setUp() {
  const health = new ChannelHealth({ failureThreshold: 1, windowMs: 60_000, cooldownMs: COOLDOWN_MS, maxCooldownMs: COOLDOWN_MS * 10 });
  const disabled: number[] = [];
  const services = {
    options: { ...defaultGatewayOptions, upstreamTimeoutMs: 5000 },
    health,
    metrics: null,
    log: silentLogger,
    disableChannel: (channel: RoutableChannel) => disabled.push(channel.id),
  };
  const channel = { id: 7, name: "c", type: "openai-compatible", baseUrl: hostile.url, apiKey: "sk-key", config: {}, adapter: adapterFor("openai-compatible") } as unknown as RoutableChannel;
  const call = { requestId: "req_test", channelsTried: [] as number[] };
  return { services, health, channel, call, disabled };
}

const request = (channel: RoutableChannel): UpstreamAttempt<null> => ({
  request: { url: `${channel.baseUrl}/chat/completions`, headers: { authorization: `Bearer ${channel.apiKey}` }, body: "{}" },
  upstreamModel: "m",
  translation: null,
});

describe("forwardWithFailover and the client's own request", () => {
  test("an exception while building the request is a 500 for the client, and the channel's health is untouched", async () => {
    const { services, health, channel, call } = setUp();
    for (let attempt = 0; attempt < 3; attempt++) {
      const error = await forwardWithFailover(services, call, [channel], undefined, () => {
        throw new TypeError("Cannot read properties of undefined");
      }).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).status).toBe(500);
    }
    expect(health.snapshot().size).toBe(0);
    expect(health.isAvailable(channel.id)).toBe(true);
    expect(hostile.requests).toEqual([]);
  });

  test("a translation refusal is a 400 with its parameter, never a channel fault", async () => {
    const { services, health, channel, call } = setUp();
    const error = await forwardWithFailover(services, call, [channel], undefined, () => {
      throw new TranslationError("'stop' must be a string or an array of strings.", "stop");
    }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 400, code: "invalid_value", param: "stop" });
    expect(health.snapshot().size).toBe(0);
  });

  test("a channel whose cool-down is over is not left probing by a request that cannot be built", async () => {
    const { services, health, channel, call } = setUp();
    health.recordFailure(channel.id, Date.now() - COOLDOWN_MS - 1);
    expect(health.isAvailable(channel.id)).toBe(true);
    await forwardWithFailover(services, call, [channel], undefined, () => {
      throw new RangeError("Maximum call stack size exceeded.");
    }).catch(() => {});
    // Still free for the next request to probe: not stuck as a probe that never ends, nor cooled down again.
    expect(health.isAvailable(channel.id)).toBe(true);
  });
});

describe("forwardWithFailover and a hostile upstream", () => {
  test("a 307 is not followed: the channel is charged a failure and the client gets 502 upstream_redirect", async () => {
    const { services, health, channel, call } = setUp();
    hostile.setMode({ kind: "redirect", status: 307 });
    const error = await forwardWithFailover(services, call, [channel], undefined, request).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ status: 502, code: "upstream_redirect" });
    expect(hostile.recorder.requests).toEqual([]);
    expect(health.isCoolingDown(channel.id)).toBe(true);
  });

  test("an error answer that never ends is read for its message only up to its cap, and the channel is charged a failure", async () => {
    const { services, health, channel, call } = setUp();
    hostile.setMode({ kind: "endless-json", status: 500 });
    const cancelled = hostile.waitForCancel();
    const error = await forwardWithFailover(services, call, [channel], undefined, request).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ status: 500 });
    expect((await cancelled).bytes).toBeLessThan(64 * 1024 * 1024);
    expect(health.isCoolingDown(channel.id)).toBe(true);
  });
});
