/**
 * What migration 0016 (monthly partitions, an index per console filter, the daily rollup's trigger) costs the
 * write-behind: the same batches written by writeUsageBatch (log rows, the usage_hourly upsert, the spool
 * checkpoint, in one transaction) into a database migrated just before 0016 and into one migrated through
 * it, in interleaved rounds. Prints the median time per batch and per row of each. Nothing here runs on a
 * /v1 request: the write-behind writes off the request path (on its own thread by default).
 * `bun bench/request-log-write-cost.ts` (embedded PGlite), or with DATABASE_URL=postgres://... (Postgres).
 * BENCH_BATCHES (40 per round), BENCH_ROWS_PER_BATCH (500), BENCH_ROUNDS (3).
 */
import { migrateDatabase, migrationsFolder } from "@tollgate/db";
import { type RequestLogRow, writeUsageBatch } from "@tollgate/gateway/accounting/write-usage-batch";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { emptyDatabase, migrateFirst } from "../test/helpers/migration-test";

const batches = Number(process.env.BENCH_BATCHES ?? 40);
const rowsPerBatch = Number(process.env.BENCH_ROWS_PER_BATCH ?? 500);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

const journal = JSON.parse(readFileSync(join(migrationsFolder, "meta", "_journal.json"), "utf8")) as { entries: { tag: string }[] };
const before = journal.entries.findIndex((entry) => entry.tag.includes("request_log_partitions"));
const databases = { "before 0016": await emptyDatabase(), "after 0016": await emptyDatabase() };
await migrateFirst(databases["before 0016"].handle, before);
await migrateDatabase(databases["after 0016"].handle);

let sequence = 0;
function batchOfLogs(): RequestLogRow[] {
  const now = Date.now();
  return Array.from({ length: rowsPerBatch }, (_, index) => {
    const token = 1 + ((sequence * rowsPerBatch + index) % 300);
    return {
      createdAt: new Date(now - index),
      requestId: `req_${sequence}_${index}`,
      userId: 1 + (token % 100),
      tokenId: token,
      tokenName: `token-${token}`,
      endpoint: "chat.completions",
      model: `model-${(token + index) % 20}`,
      upstreamModel: "upstream",
      channelId: 1 + (token % 8),
      channelsTried: [1 + (token % 8)],
      promptTokens: 200 + index,
      completionTokens: 50,
      cost: 1234,
      status: index % 20 === 0 ? 500 : 200,
      latencyMs: 300,
      firstTokenMs: 80,
      clientIp: "10.0.0.1",
      stream: index % 2 === 0,
    };
  });
}

const timings: Record<string, number[]> = { "before 0016": [], "after 0016": [] };
for (let round = 0; round < rounds; round++) {
  for (const [name, database] of Object.entries(databases)) {
    for (let batch = 0; batch < batches; batch++) {
      sequence++;
      const logs = batchOfLogs();
      const began = performance.now();
      await writeUsageBatch(
        database.handle.db,
        () => ({ logs, tokenDeltas: new Map(), userDeltas: new Map(), lastSeq: sequence }),
        { spoolId: `bench-${name}`, rowsPerInsert: 500, log: () => {} },
      );
      timings[name]!.push(performance.now() - began);
    }
  }
}
for (const [name, values] of Object.entries(timings)) {
  values.sort((a, b) => a - b);
  const median = values[Math.floor(values.length / 2)]!;
  console.log(`${name}: ${median.toFixed(1)} ms per batch of ${rowsPerBatch} rows (median of ${values.length}), ${((median * 1000) / rowsPerBatch).toFixed(1)} us per row`);
}
for (const database of Object.values(databases)) await database.drop();
process.exit(0);
