import { describe, expect, test } from "bun:test";
import { collectGatewaySources, createMetricsHooks } from "./bind-gateway-metrics";
import { createGatewayMetrics } from "./gateway-metrics";
import { MetricsRegistry, OVERFLOW_LABEL_VALUE } from "./registry";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Exposition {
  types: Map<string, string>;
  helps: Map<string, string>;
  samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/;

/** A strict reader of the text format: every line must be a HELP, a TYPE or a sample of a declared family. */
function parseExposition(text: string): Exposition {
  expect(text.endsWith("\n")).toBe(true);
  const types = new Map<string, string>();
  const helps = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.slice(0, -1).split("\n")) {
    if (line.startsWith("# HELP ")) {
      const [, name, help] = /^# HELP (\S+) (.*)$/.exec(line) ?? [];
      expect(name).toBeDefined();
      helps.set(name!, help!);
      continue;
    }
    if (line.startsWith("# TYPE ")) {
      const [, name, type] = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line) ?? [];
      expect(name).toBeDefined();
      expect(types.has(name!)).toBe(false);
      types.set(name!, type!);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${JSON.stringify(line)}`);
    const [, name, , labelText, valueText] = match;
    const family = [name!, name!.replace(/_(bucket|sum|count)$/, "")].find((candidate) => types.has(candidate));
    if (!family) throw new Error(`sample of an undeclared family: ${line}`);
    samples.push({ name: name!, labels: parseLabels(labelText ?? ""), value: parseValue(valueText!) });
  }
  return { types, helps, samples };
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let index = 0;
  while (index < text.length) {
    const name = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(text.slice(index))?.[0];
    if (!name || text[index + name.length] !== "=" || text[index + name.length + 1] !== '"') throw new Error(`bad labels ${text}`);
    index += name.length + 2;
    let value = "";
    for (;;) {
      const character = text[index++];
      if (character === undefined) throw new Error(`unterminated label value in ${text}`);
      if (character === '"') break;
      if (character === "\n") throw new Error("raw line feed in a label value");
      if (character === "\\") {
        const escaped = text[index++];
        if (escaped === "n") value += "\n";
        else if (escaped === "\\" || escaped === '"') value += escaped;
        else throw new Error(`bad escape \\${escaped}`);
      } else value += character;
    }
    expect(Object.hasOwn(labels, name)).toBe(false);
    labels[name] = value;
    if (index < text.length) {
      expect(text[index]).toBe(",");
      index++;
    }
  }
  return labels;
}

function parseValue(text: string): number {
  if (text === "+Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  if (text === "NaN") return Number.NaN;
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`bad value ${text}`);
  return value;
}

function find(exposition: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  return exposition.samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}

function valueOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = find(exposition, name, labels);
  expect(found.length).toBeLessThanOrEqual(1);
  return found[0]?.value;
}

describe("metrics registry", () => {
  test("counts per label set, with numbers and their text as one series", () => {
    const registry = new MetricsRegistry();
    const requests = registry.counter({ name: "app_requests_total", help: "Requests.", labelNames: ["route", "status"] });
    requests.labels("/a", 200).inc();
    requests.labels("/a", "200").inc(2);
    requests.labels("/a", 500).inc();
    const kept = requests.labels("/b", 200);
    kept.inc();
    kept.inc(-5);
    kept.inc(Number.NaN);
    const exposition = parseExposition(registry.render());
    expect(exposition.types.get("app_requests_total")).toBe("counter");
    expect(exposition.helps.get("app_requests_total")).toBe("Requests.");
    expect(valueOf(exposition, "app_requests_total", { route: "/a", status: "200" })).toBe(3);
    expect(valueOf(exposition, "app_requests_total", { route: "/a", status: "500" })).toBe(1);
    expect(valueOf(exposition, "app_requests_total", { route: "/b", status: "200" })).toBe(1);
  });

  test("escapes label values and help text so that they read back unchanged", () => {
    const registry = new MetricsRegistry();
    const odd = 'quote " backslash \\ newline \n end';
    registry.counter({ name: "odd_total", help: "Help with \\ and\nnewline.", labelNames: ["model"] }).labels(odd).inc();
    const text = registry.render();
    expect(text).toContain("# HELP odd_total Help with \\\\ and\\nnewline.");
    expect(valueOf(parseExposition(text), "odd_total", { model: odd })).toBe(1);
  });

  test("renders histograms with cumulative buckets, an inclusive upper bound, +Inf, sum and count", () => {
    const registry = new MetricsRegistry();
    const latency = registry.histogram({ name: "latency_seconds", help: "Latency.", labelNames: ["route"], buckets: [0.1, 0.5, 1] });
    for (const value of [0.05, 0.1, 0.3, 0.5, 0.7, 2, 100]) latency.labels("/a").observe(value);
    latency.labels("/a").observe(Number.NaN);
    const exposition = parseExposition(registry.render());
    expect(exposition.types.get("latency_seconds")).toBe("histogram");
    const buckets = find(exposition, "latency_seconds_bucket", { route: "/a" });
    expect(buckets.map((sample) => [sample.labels.le, sample.value])).toEqual([
      ["0.1", 2],
      ["0.5", 4],
      ["1", 5],
      ["+Inf", 7],
    ]);
    expect(valueOf(exposition, "latency_seconds_count", { route: "/a" })).toBe(7);
    expect(valueOf(exposition, "latency_seconds_sum", { route: "/a" })).toBeCloseTo(103.65, 10);
  });

  test("shows an unlabelled counter at zero before its first increment", () => {
    const registry = new MetricsRegistry();
    const refusals = registry.counter({ name: "refusals_total", help: "Refusals.", labelNames: [] });
    expect(valueOf(parseExposition(registry.render()), "refusals_total")).toBe(0);
    refusals.inc();
    expect(valueOf(parseExposition(registry.render()), "refusals_total")).toBe(1);
  });

  test("reads collected metrics at scrape time and skips a source that throws", () => {
    const registry = new MetricsRegistry();
    const depth = registry.collected({ name: "queue_depth", help: "Depth.", type: "gauge", labelNames: [] });
    const events = registry.collected({ name: "cache_events_total", help: "Events.", type: "counter", labelNames: ["cache", "event"] });
    let queued = 3;
    depth.onCollect((emit) => emit({}, queued));
    events.onCollect(() => {
      throw new Error("broken source");
    });
    const removeTokens = events.onCollect((emit) => {
      emit({ cache: "tokens", event: "hit" }, 10);
      emit({ cache: "tokens", event: "miss" }, 2);
    });
    let exposition = parseExposition(registry.render());
    expect(valueOf(exposition, "queue_depth")).toBe(3);
    expect(exposition.types.get("cache_events_total")).toBe("counter");
    expect(valueOf(exposition, "cache_events_total", { cache: "tokens", event: "hit" })).toBe(10);
    queued = 7;
    removeTokens();
    exposition = parseExposition(registry.render());
    expect(valueOf(exposition, "queue_depth")).toBe(7);
    expect(find(exposition, "cache_events_total")).toHaveLength(0);
  });

  test("folds series past the cap into one overflow series", () => {
    const registry = new MetricsRegistry();
    const counter = registry.counter({ name: "by_model_total", help: "By model.", labelNames: ["model"], maxSeries: 3 });
    for (let index = 0; index < 10; index++) counter.labels(`model-${index}`).inc();
    counter.labels("model-0").inc();
    const exposition = parseExposition(registry.render());
    // Three series of their own, and one for the seven values that came after.
    expect(find(exposition, "by_model_total")).toHaveLength(4);
    expect(valueOf(exposition, "by_model_total", { model: "model-0" })).toBe(2);
    expect(valueOf(exposition, "by_model_total", { model: OVERFLOW_LABEL_VALUE })).toBe(7);
  });

  test("refuses invalid names, duplicate families and a wrong number of label values", () => {
    const registry = new MetricsRegistry();
    expect(() => registry.counter({ name: "bad-name", help: "x", labelNames: [] })).toThrow();
    expect(() => registry.counter({ name: "ok_total", help: "x", labelNames: ["bad-label"] })).toThrow();
    expect(() => registry.histogram({ name: "h", help: "x", labelNames: ["le"], buckets: [1] })).toThrow();
    const counter = registry.counter({ name: "ok_total", help: "x", labelNames: ["a", "b"] });
    expect(() => registry.counter({ name: "ok_total", help: "x", labelNames: [] })).toThrow();
    expect(() => (counter.labels as (...values: string[]) => unknown)("only-one")).toThrow();
  });
});

describe("gateway metrics", () => {
  test("declares every family with its type and renders what the gateway records", () => {
    const metrics = createGatewayMetrics();
    metrics.requests.labels("chat.completions", "gpt-4o-mini", "openai", 200).inc();
    metrics.requests.labels("chat.completions", "gpt-4o-mini", "", 429).inc();
    metrics.requestDuration.labels("chat.completions", "gpt-4o-mini").observe(0.042);
    metrics.timeToFirstToken.labels("gpt-4o-mini").observe(0.2);
    metrics.tokens.labels("gpt-4o-mini", "prompt").inc(1000);
    metrics.tokens.labels("gpt-4o-mini", "completion").inc(500);
    metrics.cost.labels("gpt-4o-mini").inc(2000);
    metrics.upstreamErrors.labels("openai", 503).inc();
    metrics.upstreamRetries.labels("openai").inc();
    metrics.rateLimitRefusals.labels("tokens").inc();
    metrics.cacheEvents.onCollect((emit) => emit({ cache: "tokens", event: "eviction" }, 4));
    metrics.usageQueueDepth.onCollect((emit) => emit({}, 12));
    metrics.usageDroppedLogs.onCollect((emit) => emit({}, 0));
    metrics.channelState.onCollect((emit) => {
      emit({ channel: "openai", state: "enabled" }, 1);
      emit({ channel: "openai", state: "cooling_down" }, 0);
    });

    const exposition = parseExposition(metrics.render());
    expect(Object.fromEntries(exposition.types)).toMatchObject({
      tollgate_requests_total: "counter",
      tollgate_request_duration_seconds: "histogram",
      tollgate_time_to_first_token_seconds: "histogram",
      tollgate_tokens_total: "counter",
      tollgate_cost_microusd_total: "counter",
      tollgate_upstream_errors_total: "counter",
      tollgate_upstream_retries_total: "counter",
      tollgate_cache_events_total: "counter",
      tollgate_usage_queue_depth: "gauge",
      tollgate_usage_dropped_logs_total: "counter",
      tollgate_rate_limit_refusals_total: "counter",
      tollgate_channel_state: "gauge",
      process_resident_memory_bytes: "gauge",
    });
    expect(valueOf(exposition, "tollgate_requests_total", { endpoint: "chat.completions", channel: "openai", status: "200" })).toBe(1);
    expect(valueOf(exposition, "tollgate_requests_total", { channel: "", status: "429" })).toBe(1);
    expect(valueOf(exposition, "tollgate_request_duration_seconds_bucket", { model: "gpt-4o-mini", le: "0.05" })).toBe(1);
    expect(valueOf(exposition, "tollgate_request_duration_seconds_bucket", { model: "gpt-4o-mini", le: "0.025" })).toBe(0);
    expect(valueOf(exposition, "tollgate_time_to_first_token_seconds_count", { model: "gpt-4o-mini" })).toBe(1);
    expect(valueOf(exposition, "tollgate_tokens_total", { kind: "completion" })).toBe(500);
    expect(valueOf(exposition, "tollgate_cost_microusd_total", { model: "gpt-4o-mini" })).toBe(2000);
    expect(valueOf(exposition, "tollgate_upstream_errors_total", { channel: "openai", status: "503" })).toBe(1);
    expect(valueOf(exposition, "tollgate_upstream_retries_total", { channel: "openai" })).toBe(1);
    expect(valueOf(exposition, "tollgate_rate_limit_refusals_total", { limit: "tokens" })).toBe(1);
    expect(valueOf(exposition, "tollgate_cache_events_total", { cache: "tokens", event: "eviction" })).toBe(4);
    expect(valueOf(exposition, "tollgate_usage_queue_depth")).toBe(12);
    expect(valueOf(exposition, "tollgate_usage_dropped_logs_total")).toBe(0);
    expect(valueOf(exposition, "tollgate_channel_state", { channel: "openai", state: "enabled" })).toBe(1);
    expect(valueOf(exposition, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(metrics.contentType).toBe("text/plain; version=0.0.4; charset=utf-8");
  });
});

describe("gateway metric sources", () => {
  test("reads caches, the usage queue and channel states at scrape time, and maps the routing hooks", () => {
    const metrics = createGatewayMetrics({ processMetrics: false });
    const tokens = { hits: 5, misses: 2, evictions: 1 };
    let depth = 4;
    const remove = collectGatewaySources(metrics, {
      caches: { tokens },
      usageQueueDepth: () => depth,
      usageDroppedLogs: () => 3,
      channelStates: () => [["openai", "cooldown"]],
      channelStateNames: ["healthy", "cooldown", "probing"],
    });
    const hooks = createMetricsHooks(metrics, (id) => `channel-${id}`);
    hooks.retry(7);
    hooks.retry(7);
    hooks.upstreamError(7, "timeout");
    tokens.hits = 6;
    depth = 9;
    let exposition = parseExposition(metrics.render());
    expect(valueOf(exposition, "tollgate_cache_events_total", { cache: "tokens", event: "hit" })).toBe(6);
    expect(valueOf(exposition, "tollgate_cache_events_total", { cache: "tokens", event: "eviction" })).toBe(1);
    expect(valueOf(exposition, "tollgate_usage_queue_depth")).toBe(9);
    expect(valueOf(exposition, "tollgate_usage_dropped_logs_total")).toBe(3);
    expect(valueOf(exposition, "tollgate_channel_state", { channel: "openai", state: "cooldown" })).toBe(1);
    expect(valueOf(exposition, "tollgate_channel_state", { channel: "openai", state: "healthy" })).toBe(0);
    expect(valueOf(exposition, "tollgate_upstream_retries_total", { channel: "channel-7" })).toBe(2);
    expect(valueOf(exposition, "tollgate_upstream_errors_total", { channel: "channel-7", status: "timeout" })).toBe(1);
    remove();
    exposition = parseExposition(metrics.render());
    expect(find(exposition, "tollgate_usage_queue_depth")).toHaveLength(0);
  });
});
