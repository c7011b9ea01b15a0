import { describe, expect, test } from "bun:test";
import { adapterFor } from "@tollgate/upstream";
import type { RoutableChannel } from "./channel-catalog";
import { channelsFor, orderChannels } from "./choose-channels";

function channel(id: number, priority: number, weight: number, extra: Partial<RoutableChannel> = {}): RoutableChannel {
  return {
    id,
    name: `c${id}`,
    type: "openai-compatible",
    baseUrl: "http://127.0.0.1:1/v1",
    apiKey: "k",
    models: ["m"],
    modelMapping: {},
    groups: new Set(["default"]),
    priority,
    weight,
    enabled: true,
    config: {},
    createdAt: 0,
    adapter: adapterFor("openai-compatible"),
    ...extra,
  };
}

describe("channel order", () => {
  test("higher priority tiers always come first", () => {
    const order = orderChannels([channel(1, 0, 100), channel(2, 10, 1), channel(3, 5, 1)]);
    expect(order.map((entry) => entry.id)).toEqual([2, 3, 1]);
  });

  test("weights split traffic within a tier", () => {
    const counts = new Map<number, number>();
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    for (let index = 0; index < 4000; index++) {
      const first = orderChannels([channel(1, 0, 3), channel(2, 0, 1)], random)[0] as RoutableChannel;
      counts.set(first.id, (counts.get(first.id) ?? 0) + 1);
    }
    const share = (counts.get(1) ?? 0) / 4000;
    expect(share).toBeGreaterThan(0.7);
    expect(share).toBeLessThan(0.8);
  });

  test("only enabled channels of the token's group are usable", () => {
    const listed = [channel(1, 0, 1, { enabled: false }), channel(2, 0, 1, { groups: new Set(["vip"]) })];
    expect(channelsFor(listed, "default")).toEqual({ usable: [], listedInGroup: true });
    expect(channelsFor(listed, "vip").usable.map((entry) => entry.id)).toEqual([2]);
    expect(channelsFor(undefined, "default")).toEqual({ usable: [], listedInGroup: false });
  });
});
