// Where the gateway's time goes: runs it under `bun --cpu-prof` while driving non-streamed and streamed
// load, stops it (the profile is written on exit), and prints the hottest functions by self and total
// time, with file:line. Usage: bun bench/profile.ts   (BENCH_PROFILE_MS per phase, default 6000;
// BENCH_PROFILE_PHASES=plain|plain1|stream to profile one kind of load, plain1 being one connection and
// run only when asked; BENCH_PROFILE_KEEP=1 keeps the .cpuprofile, which Chrome DevTools and speedscope open).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { drive } from "./lib/drive";
import { formatTable } from "./lib/format";
import { stageOf } from "./lib/profile-stages";
import { chatBody, root, startStack } from "./lib/stack";

const phaseMs = Number(process.env.BENCH_PROFILE_MS ?? 6000);
const profileDir = mkdtempSync(join(tmpdir(), "tollgate-profile-"));

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const intervalMicros = 250;
const stack = await startStack({ gatewayBunFlags: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-interval=${intervalMicros}`] });
const allPhases = [
  { id: "plain", name: "non-streamed, 32 connections", stream: false, concurrency: 32 },
  { id: "stream", name: "streamed, 200 concurrent streams", stream: true, concurrency: 200 },
  // Latency at one connection: the code runs colder there (the CPU idles between requests), so its costs differ.
  { id: "plain1", name: "non-streamed, 1 connection", stream: false, concurrency: 1, onlyWhenAsked: true },
];
// BENCH_PROFILE_PHASES=stream (or plain, plain1) profiles one kind of load alone.
const wantedPhases = process.env.BENCH_PROFILE_PHASES?.split(",").map((id) => id.trim());
const phases = wantedPhases
  ? allPhases.filter((phase) => wantedPhases.includes(phase.id))
  : allPhases.filter((phase) => !("onlyWhenAsked" in phase));
let completed = 0;
const loadStartedAt = performance.now();
let loadEndedAt = loadStartedAt;
let exitedAt = loadStartedAt;
try {
  for (const phase of phases) {
    const { result } = await drive(
      {
        url: `${stack.gateway.url}/chat/completions`,
        headers: { "content-type": "application/json", authorization: `Bearer ${stack.key}` },
        body: chatBody(phase.stream),
        concurrency: phase.concurrency,
        warmupMs: 0,
        durationMs: phaseMs,
        stream: phase.stream,
      },
      [],
    );
    completed += result.completed;
    console.log(`${phase.name}: ${result.completed} requests, ${Math.round(result.requestsPerSecond)} req/s, ${result.errors} errors`);
  }
  loadEndedAt = performance.now();
} finally {
  await stack.stop();
  exitedAt = performance.now();
}

const file = readdirSync(profileDir).find((name) => name.endsWith(".cpuprofile"));
if (!file) throw new Error(`no .cpuprofile was written to ${profileDir}`);
const profile = JSON.parse(readFileSync(join(profileDir, file), "utf8")) as CpuProfile;
// The profile ends when the process exits: keep the samples of the load phases only (not start-up,
// migrations, seeding or shutdown), by their distance from the end.
summarize(profile, (exitedAt - loadStartedAt) * 1000, (exitedAt - loadEndedAt) * 1000);
if (process.env.BENCH_PROFILE_KEEP) console.log(`\nprofile kept: ${join(profileDir, file)}`);
else rmSync(profileDir, { recursive: true, force: true });

function location(frame: CallFrame): string {
  let url = frame.url.replace(/^file:\/\//, "");
  if (url.startsWith(root)) url = relative(root, url);
  url = url.replace(/^.*node_modules\/(\.bun\/[^/]+\/node_modules\/)?/, "node_modules/");
  if (!url) return "(native)";
  return `${url}:${frame.lineNumber + 1}`;
}

/**
 * JavaScriptCore samples only while the process runs code (a sample's time delta also spans the idle gap
 * before it), so each sample counts for one interval: the figures approximate CPU time on this thread.
 */
function summarize(profile: CpuProfile, windowStartFromEnd: number, windowEndFromEnd: number): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const byStage = new Map<string, number>();
  const from = profile.endTime - windowStartFromEnd;
  const to = profile.endTime - windowEndFromEnd;
  let time = profile.startTime;
  let kept = 0;
  profile.samples.forEach((id, index) => {
    time += profile.timeDeltas[index] ?? 0;
    if (time < from || time > to) return;
    kept++;
    const node = byId.get(id)!;
    const selfKey = `${node.callFrame.functionName || "(anonymous)"}  ${location(node.callFrame)}`;
    self.set(selfKey, (self.get(selfKey) ?? 0) + 1);
    const stack: CallFrame[] = [];
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) stack.push(byId.get(current)!.callFrame);
    const stage = stageOf(stack);
    byStage.set(stage, (byStage.get(stage) ?? 0) + 1);
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const frame = byId.get(current)!.callFrame;
      const key = `${frame.functionName || "(anonymous)"}  ${location(frame)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      total.set(key, (total.get(key) ?? 0) + 1);
    }
  });
  const top = (map: Map<string, number>, count: number, filter: (key: string) => boolean = () => true) =>
    [...map.entries()]
      .filter(([key]) => filter(key) && !key.startsWith("(root)"))
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([key, samples]) => [key, ((samples * intervalMicros) / 1000).toFixed(0), `${((samples / kept) * 100).toFixed(1)}%`]);
  const busyMs = (kept * intervalMicros) / 1000;
  console.log(`\nprofile of the load phases: ${kept} samples = ${(busyMs / 1000).toFixed(1)} s on the JS thread, ${completed} requests, ${(busyMs / Math.max(1, completed)).toFixed(3)} ms per request`);
  console.log("\nby stage of the exchange (JS thread; us per request = samples x interval / requests)");
  console.log(
    formatTable(
      ["stage", "us/request", "% samples"],
      [...byStage.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([stage, samples]) => [stage, ((samples * intervalMicros) / Math.max(1, completed)).toFixed(1), `${((samples / kept) * 100).toFixed(1)}%`]),
    ),
  );
  console.log("\nhottest functions by self time");
  console.log(formatTable(["function  location", "ms", "% samples"], top(self, 30)));
  console.log("\nproject functions by total time (self + callees)");
  console.log(formatTable(["function  location", "ms", "% samples"], top(total, 30, (key) => /\s(apps|packages)\//.test(key))));
  console.log("\ndependencies by total time");
  console.log(formatTable(["function  location", "ms", "% samples"], top(total, 25, (key) => key.includes("node_modules/"))));
}
