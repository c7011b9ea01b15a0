// Attributes a CPU profile's samples to the stages of an exchange, by the innermost project or dependency
// frame on each sample's stack that names one: the "where each microsecond goes" of issue 15, for the
// gateway's JavaScript thread (the other threads are measured by the CPU-bound bench, per thread).

export interface StageFrame {
  functionName: string;
  url: string;
}

/** First match wins, walking from the sampled frame outwards; order matters where stages nest. */
const stages: Array<{ stage: string; matches(frame: StageFrame): boolean }> = [
  { stage: "log line (logger.ts)", matches: (frame) => frame.url.endsWith("/logger.ts") },
  { stage: "metrics (registry, labels)", matches: (frame) => frame.url.includes("/metrics/") },
  { stage: "usage spool append (encode + write syscall)", matches: (frame) => frame.url.endsWith("/usage-spool.ts") || frame.url.endsWith("/spool-line.ts") },
  { stage: "hand-over to the write-behind (postMessage)", matches: (frame) => frame.url.endsWith("/usage-writer-thread.ts") },
  { stage: "quota settle / reservation", matches: (frame) => frame.url.includes("/quota-le") },
  { stage: "usage and request-log record (call-record.ts, rest)", matches: (frame) => frame.url.endsWith("/call-record.ts") },
  { stage: "stream relay (framing, usage scan)", matches: (frame) => frame.url.includes("/streaming/") || frame.url.includes("relay-openai-stream") || frame.url.includes("eventsource-parser") },
  { stage: "auth (key hash, cached records)", matches: (frame) => frame.url.includes("/auth/") || frame.url.includes("token-key") },
  { stage: "rate limits", matches: (frame) => frame.url.includes("/policy/") },
  { stage: "body read and parse", matches: (frame) => frame.url.endsWith("/read-json-body.ts") },
  { stage: "admission rules (IP, model, identifiers)", matches: (frame) => frame.url.endsWith("/admit.ts") || frame.url.endsWith("/validate-identifiers.ts") },
  { stage: "routing (catalog, choose channels)", matches: (frame) => frame.url.endsWith("/route.ts") || frame.url.includes("/routing/channel") || frame.url.includes("choose-channels") },
  { stage: "request rewrite (codec parse, prepare)", matches: (frame) => frame.url.includes("/codecs/") && /parse|prepare/i.test(frame.functionName) },
  { stage: "upstream fetch (failover loop)", matches: (frame) => frame.url.endsWith("/forward-with-failover.ts") },
  { stage: "whole answer (read, usage, render)", matches: (frame) => frame.url.includes("/codecs/") },
  { stage: "exchange (run-exchange.ts)", matches: (frame) => frame.url.endsWith("/run-exchange.ts") },
  { stage: "client address, idle timeout, handler (app.ts)", matches: (frame) => frame.url.endsWith("/app.ts") || frame.url.endsWith("/client-address.ts") },
  { stage: "Elysia", matches: (frame) => frame.url.includes("/elysia/") },
  { stage: "Postgres / PGlite client", matches: (frame) => /\/(postgres|drizzle-orm|@electric-sql)\//.test(frame.url) },
];

export const OUTSIDE_STAGES = "native, outside any project frame (server I/O, promise jobs, GC)";

export function stageOf(stack: StageFrame[]): string {
  for (const frame of stack) {
    for (const { stage, matches } of stages) if (matches(frame)) return stage;
  }
  return OUTSIDE_STAGES;
}
