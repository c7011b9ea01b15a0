import { describe, expect, test } from "bun:test";
import type { InvalidationMessage } from "@tollgate/db";
import { ChannelHealth, defaultChannelHealthOptions } from "../routing/channel-health";
import { createInvalidationRouter, type InvalidationTargets } from "./invalidation-router";

/** Targets that write down what was asked of them, in order, as "target.method(argument)". */
function recordingTargets() {
  const calls: string[] = [];
  function recorder<K>(name: string) {
    return {
      forgetAbsent: (key: K) => void calls.push(`${name}.forgetAbsent(${key})`),
      refresh: (key: K) => void calls.push(`${name}.refresh(${key})`),
      delete: (key: K) => void calls.push(`${name}.delete(${key})`),
      clear: () => void calls.push(`${name}.clear()`),
    };
  }
  const health = new ChannelHealth(defaultChannelHealthOptions, () => {});
  const targets: InvalidationTargets = {
    instanceId: "this-instance",
    tokens: recorder<string>("tokens"),
    users: recorder<number>("users"),
    tokenHashById: new Map(),
    catalog: { invalidate: () => void calls.push("catalog.invalidate()") },
    settings: { invalidate: () => void calls.push("settings.invalidate()") },
    leases: { forgetRefusal: (subject) => void calls.push(`leases.forgetRefusal(${subject})`) },
    health,
    mcp: { invalidate: () => void calls.push("mcp.invalidate()") },
  };
  return { calls, targets, health };
}

const message = (fields: Partial<InvalidationMessage> & Pick<InvalidationMessage, "table">): InvalidationMessage => ({ op: "update", kind: "change", ...fields });

describe("invalidation router", () => {
  test("a token's insert forgets only its cached absence, a usage change refreshes it, any other change evicts it and its lease refusal", () => {
    const { calls, targets } = recordingTargets();
    const router = createInvalidationRouter(targets);
    router.route(message({ table: "tokens", op: "insert", id: 7, key_hash: "h7" }));
    router.route(message({ table: "tokens", kind: "usage", id: 7, key_hash: "h7" }));
    router.route(message({ table: "tokens", id: 7, key_hash: "h7" }));
    expect(calls).toEqual(["tokens.forgetAbsent(h7)", "tokens.refresh(h7)", "tokens.delete(h7)", "leases.forgetRefusal(token:7)"]);
    expect(targets.tokenHashById.get(7)).toBe("h7");
  });

  test("a user's change evicts the user and the refusals of its balance and budget leases", () => {
    const { calls, targets } = recordingTargets();
    const router = createInvalidationRouter(targets);
    router.route(message({ table: "users", op: "insert", id: 3 }));
    router.route(message({ table: "users", kind: "usage", id: 3 }));
    router.route(message({ table: "users", op: "delete", id: 3 }));
    router.route(message({ table: "users" }));
    expect(calls).toEqual(["users.forgetAbsent(3)", "users.refresh(3)", "users.delete(3)", "leases.forgetRefusal(user:3)", "leases.forgetRefusal(budget:3)"]);
  });

  test("channels and prices invalidate the catalog, settings the settings, and nothing else", () => {
    const { calls, targets } = recordingTargets();
    const router = createInvalidationRouter(targets);
    router.route(message({ table: "channels", id: 1 }));
    router.route(message({ table: "model_prices", model: "gpt-4o" }));
    router.route(message({ table: "settings", key: "default_max_tokens" }));
    expect(calls).toEqual(["catalog.invalidate()", "catalog.invalidate()", "settings.invalidate()"]);
  });

  test("another instance's channel health change is applied here; this instance's own broadcast is not", () => {
    const { targets, health } = recordingTargets();
    const router = createInvalidationRouter(targets);
    const until = Date.now() + 60_000;
    router.route(message({ table: "channel_health", id: 5, state: "cooldown", until, origin: "this-instance" }));
    expect(health.snapshot().has(5)).toBe(false);
    router.route(message({ table: "channel_health", id: 5, state: "cooldown", until, origin: "other-instance" }));
    expect(health.snapshot().get(5)).toBe("cooldown");
    router.route(message({ table: "channel_health", id: 5, state: "healthy", origin: "other-instance" }));
    expect(health.snapshot().has(5)).toBe(false);
  });

  test("flushAll empties every cache (after a reconnection, whatever was sent meanwhile is lost)", () => {
    const { calls, targets } = recordingTargets();
    createInvalidationRouter(targets).flushAll();
    expect(calls.sort()).toEqual(["catalog.invalidate()", "mcp.invalidate()", "settings.invalidate()", "tokens.clear()", "users.clear()"]);
  });

  test("a change to an MCP server reloads the MCP registrations", () => {
    const { calls, targets } = recordingTargets();
    const router = createInvalidationRouter(targets);
    router.route(message({ table: "mcp_servers", id: 4 }));
    expect(calls).toEqual(["mcp.invalidate()"]);
  });
});
