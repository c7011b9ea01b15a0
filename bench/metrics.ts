// Hot-path cost of recording one request's metrics: Tollgate's registry against prom-client.
// Usage: bun bench/metrics.ts [--iterations N]
// prom-client is not a dependency of the project; to compare, install it anywhere and point at it:
//   npm install --prefix /tmp/prom-bench prom-client && PROM_CLIENT=/tmp/prom-bench/node_modules/prom-client bun bench/metrics.ts
import { createGatewayMetrics } from "../apps/gateway/src/metrics/gateway-metrics";
import { formatTable } from "./lib/format";

const iterations = Number(process.env.BENCH_METRICS_ITERATIONS ?? 2_000_000);
const endpoints = ["chat.completions", "embeddings"];
const models = ["gpt-4o-mini", "gpt-4o", "claude-sonnet", "deepseek-chat"];
const channels = ["openai", "azure", "backup"];
const statuses = [200, 200, 200, 429, 502];

/** ns per call: the best of five rounds, after a warm-up round. */
function measure(body: (index: number) => void): number {
  const rounds: number[] = [];
  for (let round = 0; round < 6; round++) {
    const started = Bun.nanoseconds();
    for (let index = 0; index < iterations; index++) body(index);
    const elapsed = Bun.nanoseconds() - started;
    if (round > 0) rounds.push(elapsed / iterations);
  }
  return Math.min(...rounds);
}

/** The six updates one streamed call makes, whichever registry holds the series. */
interface CallSeries {
  requests: LabelledCounter;
  duration: LabelledHistogram;
  ttft: LabelledHistogram;
  tokens: LabelledCounter;
  cost: LabelledCounter;
}
interface LabelledCounter {
  labels(...values: Array<string | number>): { inc(by?: number): void };
}
interface LabelledHistogram {
  labels(...values: Array<string | number>): { observe(value: number): void };
}

function recordCall(series: CallSeries, index: number): void {
  const endpoint = endpoints[index & 1]!;
  const model = models[index & 3]!;
  series.requests.labels(endpoint, model, channels[index % 3]!, statuses[index % 5]!).inc();
  series.duration.labels(endpoint, model).observe((index % 1000) / 1000);
  series.ttft.labels(model).observe((index % 300) / 1000);
  series.tokens.labels(model, "prompt").inc(100);
  series.tokens.labels(model, "completion").inc(50);
  series.cost.labels(model).inc(75);
}

/** What the gateway records at the end of one streamed call. */
function tollgateRecorder() {
  const metrics = createGatewayMetrics({ processMetrics: false });
  const series = { requests: metrics.requests, duration: metrics.requestDuration, ttft: metrics.timeToFirstToken, tokens: metrics.tokens, cost: metrics.cost } satisfies CallSeries;
  return { metrics, record: (index: number) => recordCall(series, index) };
}

/** The slice of prom-client's API used here (it is not a dependency, so its types are not there). */
interface PromMetric {
  labels(...values: Array<string | number>): { inc(by?: number): void; observe(value: number): void };
  inc(labels: Record<string, string>, by?: number): void;
  observe(labels: Record<string, string>, value: number): void;
}
interface PromClient {
  Registry: new () => { metrics(): Promise<string> };
  Counter: new (options: object) => PromMetric;
  Histogram: new (options: object) => PromMetric;
}

async function promClientRecorder() {
  let promClient: PromClient;
  try {
    const specifier = process.env.PROM_CLIENT ?? "prom-client";
    promClient = (await import(specifier)) as PromClient;
  } catch {
    return null;
  }
  const registry = new promClient.Registry();
  const requests = new promClient.Counter({ name: "tollgate_requests_total", help: "x", labelNames: ["endpoint", "model", "channel", "status"], registers: [registry] });
  const duration = new promClient.Histogram({ name: "tollgate_request_duration_seconds", help: "x", labelNames: ["endpoint", "model"], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300], registers: [registry] });
  const ttft = new promClient.Histogram({ name: "tollgate_time_to_first_token_seconds", help: "x", labelNames: ["model"], buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30], registers: [registry] });
  const tokens = new promClient.Counter({ name: "tollgate_tokens_total", help: "x", labelNames: ["model", "kind"], registers: [registry] });
  const cost = new promClient.Counter({ name: "tollgate_cost_microusd_total", help: "x", labelNames: ["model"], registers: [registry] });
  const series = { requests, duration, ttft, tokens, cost } satisfies CallSeries;
  return {
    registry,
    record: (index: number) => recordCall(series, index),
    /** prom-client's other calling style: a label object per call. */
    recordWithObjects(index: number) {
      const endpoint = endpoints[index & 1]!;
      const model = models[index & 3]!;
      requests.inc({ endpoint, model, channel: channels[index % 3]!, status: String(statuses[index % 5]!) });
      duration.observe({ endpoint, model }, (index % 1000) / 1000);
      ttft.observe({ model }, (index % 300) / 1000);
      tokens.inc({ model, kind: "prompt" }, 100);
      tokens.inc({ model, kind: "completion" }, 50);
      cost.inc({ model }, 75);
    },
  };
}

async function renderMicroseconds(render: () => string | Promise<string>): Promise<number> {
  for (let index = 0; index < 50; index++) await render();
  const started = Bun.nanoseconds();
  const count = 500;
  for (let index = 0; index < count; index++) await render();
  return (Bun.nanoseconds() - started) / count / 1000;
}

const ours = tollgateRecorder();
const child = ours.metrics.requests.labels("chat.completions", "gpt-4o-mini", "openai", 200);
const rows: string[][] = [];
rows.push(["tollgate: one request (6 updates, labels resolved per call)", measure(ours.record).toFixed(0)]);
rows.push(["tollgate: counter.labels(4 values).inc()", measure((index) => ours.metrics.requests.labels(endpoints[index & 1]!, models[index & 3]!, channels[index % 3]!, statuses[index % 5]!).inc()).toFixed(1)]);
rows.push(["tollgate: pre-resolved child.inc()", measure(() => child.inc()).toFixed(1)]);
rows.push(["tollgate: histogram.labels(2).observe()", measure((index) => ours.metrics.requestDuration.labels(endpoints[index & 1]!, models[index & 3]!).observe((index % 1000) / 1000)).toFixed(1)]);

const theirs = await promClientRecorder();
if (theirs) {
  rows.push(["prom-client: one request (6 updates, .labels())", measure(theirs.record).toFixed(0)]);
  rows.push(["prom-client: one request (6 updates, label objects)", measure(theirs.recordWithObjects).toFixed(0)]);
}
console.log(`metrics hot path, ns per call (best of 5 rounds of ${iterations.toLocaleString()})`);
console.log(formatTable(["operation", "ns/op"], rows));

const renderRows = [["tollgate render()", (await renderMicroseconds(() => ours.metrics.render())).toFixed(1)]];
if (theirs) renderRows.push(["prom-client registry.metrics()", (await renderMicroseconds(() => theirs.registry.metrics())).toFixed(1)]);
console.log(`\nscrape of the same series (${models.length} models x ${endpoints.length} endpoints x ${channels.length} channels x 3 statuses), microseconds`);
console.log(formatTable(["operation", "us/scrape"], renderRows));
if (!theirs) console.log("\n(prom-client not found: set PROM_CLIENT to compare)");
