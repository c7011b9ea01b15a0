import { describe, expect, test } from "bun:test";
import { ChannelHealth, type HealthChange } from "./channel-health";

const options = { failureThreshold: 3, windowMs: 10_000, cooldownMs: 1_000, maxCooldownMs: 8_000 };

describe("channel health", () => {
  test("repeated failures within the window start a cool-down that is broadcast", () => {
    const changes: HealthChange[] = [];
    const health = new ChannelHealth(options, (change) => changes.push(change));
    health.recordFailure(1, 0);
    health.recordFailure(1, 100);
    expect(health.isAvailable(1, 200)).toBe(true);
    health.recordFailure(1, 200);
    expect(health.isAvailable(1, 300)).toBe(false);
    expect(changes).toEqual([{ channelId: 1, state: "cooldown", until: 1_200 }]);
  });

  test("failures spread wider than the window do not trip it", () => {
    const health = new ChannelHealth(options);
    health.recordFailure(1, 0);
    health.recordFailure(1, 6_000);
    health.recordFailure(1, 12_000);
    expect(health.isAvailable(1, 12_001)).toBe(true);
  });

  test("after the cool-down one probe goes through; success makes it healthy again", () => {
    const changes: HealthChange[] = [];
    const health = new ChannelHealth(options, (change) => changes.push(change));
    for (const time of [0, 1, 2]) health.recordFailure(1, time);
    expect(health.isAvailable(1, 1_500)).toBe(true);
    health.begin(1, 1_500);
    // While the probe is in flight nobody else uses the channel.
    expect(health.isAvailable(1, 1_501)).toBe(false);
    health.recordSuccess(1);
    expect(health.isAvailable(1, 1_502)).toBe(true);
    expect(changes.at(-1)).toEqual({ channelId: 1, state: "healthy" });
  });

  test("a failed probe doubles the cool-down", () => {
    const health = new ChannelHealth(options);
    for (const time of [0, 1, 2]) health.recordFailure(1, time);
    health.begin(1, 1_500);
    health.recordFailure(1, 1_500);
    expect(health.isAvailable(1, 3_000)).toBe(false);
    expect(health.isAvailable(1, 3_501)).toBe(true);
  });

  test("a cool-down broadcast by another instance is applied", () => {
    const health = new ChannelHealth(options);
    health.apply({ channelId: 7, state: "cooldown", until: Date.now() + 60_000 });
    expect(health.isAvailable(7)).toBe(false);
    health.apply({ channelId: 7, state: "healthy" });
    expect(health.isAvailable(7)).toBe(true);
  });
});
