export interface ChannelHealthOptions {
  /** Failures within `windowMs` that put a channel into cool-down. */
  failureThreshold: number;
  windowMs: number;
  /** First cool-down; doubles on each failed probe, up to `maxCooldownMs`. */
  cooldownMs: number;
  maxCooldownMs: number;
}

export const defaultChannelHealthOptions: ChannelHealthOptions = {
  failureThreshold: 3,
  windowMs: 60_000,
  cooldownMs: 30_000,
  maxCooldownMs: 600_000,
};

interface HealthState {
  failures: number[];
  /** Epoch ms until which the channel is skipped; 0 when healthy. */
  coolingUntil: number;
  cooldownMs: number;
  /** A probe (the first request after the cool-down) is in flight. */
  probing: boolean;
}

export type HealthChange = { channelId: number; state: "cooldown"; until: number } | { channelId: number; state: "healthy" };

/**
 * A circuit breaker per channel. N failures (connection errors, timeouts, 429, 5xx) within a window put it
 * into cool-down: it is skipped while any other channel can serve. When the cool-down ends, one real request
 * probes it: success brings it back, failure cools it down again for twice as long. Changes are reported
 * through `onChange` so they can be broadcast to the other instances.
 */
export class ChannelHealth {
  private readonly states = new Map<number, HealthState>();

  constructor(
    private readonly options: ChannelHealthOptions = defaultChannelHealthOptions,
    private readonly onChange: (change: HealthChange) => void = () => {},
  ) {}

  /** Healthy, or cooled down long enough that this request may probe it. */
  isAvailable(channelId: number, now = Date.now()): boolean {
    const state = this.states.get(channelId);
    if (!state || state.coolingUntil === 0) return true;
    if (now < state.coolingUntil || state.probing) return false;
    return true;
  }

  isCoolingDown(channelId: number, now = Date.now()): boolean {
    const state = this.states.get(channelId);
    return state !== undefined && state.coolingUntil !== 0 && now < state.coolingUntil;
  }

  /** Marks the start of a request on a channel; a channel past its cool-down becomes a probe. */
  begin(channelId: number, now = Date.now()): void {
    const state = this.states.get(channelId);
    if (state && state.coolingUntil !== 0 && now >= state.coolingUntil) state.probing = true;
  }

  recordSuccess(channelId: number): void {
    const state = this.states.get(channelId);
    if (!state) return;
    const wasCooling = state.coolingUntil !== 0;
    this.states.delete(channelId);
    if (wasCooling) this.onChange({ channelId, state: "healthy" });
  }

  recordFailure(channelId: number, now = Date.now()): void {
    let state = this.states.get(channelId);
    if (!state) {
      state = { failures: [], coolingUntil: 0, cooldownMs: this.options.cooldownMs, probing: false };
      this.states.set(channelId, state);
    }
    if (state.probing) {
      state.probing = false;
      state.cooldownMs = Math.min(this.options.maxCooldownMs, state.cooldownMs * 2);
      state.coolingUntil = now + state.cooldownMs;
      this.onChange({ channelId, state: "cooldown", until: state.coolingUntil });
      return;
    }
    state.failures = state.failures.filter((time) => now - time < this.options.windowMs);
    state.failures.push(now);
    if (state.coolingUntil === 0 && state.failures.length >= this.options.failureThreshold) {
      state.failures = [];
      state.coolingUntil = now + state.cooldownMs;
      this.onChange({ channelId, state: "cooldown", until: state.coolingUntil });
    }
  }

  /** Applies a change another instance broadcast (no re-broadcast). */
  apply(change: HealthChange): void {
    if (change.state === "healthy") {
      this.states.delete(change.channelId);
      return;
    }
    const state = this.states.get(change.channelId) ?? { failures: [], coolingUntil: 0, cooldownMs: this.options.cooldownMs, probing: false };
    state.coolingUntil = Math.max(state.coolingUntil, change.until);
    this.states.set(change.channelId, state);
  }

  /** Channel id -> "cooldown" | "healthy" for metrics and the console. */
  snapshot(now = Date.now()): Map<number, "cooldown" | "probing"> {
    const result = new Map<number, "cooldown" | "probing">();
    for (const [id, state] of this.states) {
      if (state.coolingUntil === 0) continue;
      result.set(id, now < state.coolingUntil ? "cooldown" : "probing");
    }
    return result;
  }
}
