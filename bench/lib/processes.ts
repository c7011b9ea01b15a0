import { readdirSync, readFileSync } from "node:fs";
import type { Subprocess } from "bun";

export interface Service {
  name: string;
  url: string;
  pid: number;
  process: Subprocess<"ignore", "pipe", "inherit">;
  /** The last lines it printed, for diagnostics. */
  output(): string;
  stop(): Promise<void>;
}

const clockTicksPerSecond = (() => {
  const result = Bun.spawnSync(["getconf", "CLK_TCK"]);
  const value = Number(result.stdout.toString().trim());
  return Number.isFinite(value) && value > 0 ? value : 100;
})();

/**
 * Starts a server process and resolves once it prints a line with `"url":"http://..."` (the bench servers'
 * first line; the gateway's "listening" log line). Its stdout is drained for as long as it runs.
 */
export async function startService(name: string, argv: string[], env: Record<string, string | undefined>, cwd?: string): Promise<Service> {
  const child = Bun.spawn(argv, { env, cwd, stdin: "ignore", stdout: "pipe", stderr: "inherit" });
  const decoder = new TextDecoder();
  let tail = "";
  let resolveUrl: (url: string) => void = () => {};
  const urlSeen = new Promise<string>((resolve) => (resolveUrl = resolve));
  let found = false;
  void (async () => {
    const reader = child.stdout.getReader();
    for (;;) {
      const { done, value: chunk } = await reader.read();
      if (done) return;
      tail = (tail + decoder.decode(chunk)).slice(-20_000);
      if (!found) {
        const match = /"url":"(http:\/\/[^"]+)"/.exec(tail);
        if (match) {
          found = true;
          resolveUrl(match[1]!.replace("localhost", "127.0.0.1"));
        }
      }
    }
  })();
  const url = await Promise.race([
    urlSeen,
    child.exited.then((code) => {
      throw new Error(`${name} exited with code ${code} before listening:\n${tail}`);
    }),
  ]);
  return {
    name,
    url,
    pid: child.pid,
    process: child,
    output: () => tail,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const exited = await Promise.race([child.exited.then(() => true), Bun.sleep(60_000).then(() => false)]);
      if (!exited) {
        child.kill("SIGKILL");
        await child.exited;
      }
    },
  };
}

export interface ProcessSample {
  /** Resident set size now, and its peak so far, in KiB. */
  rssKiB: number;
  peakRssKiB: number;
  /** User + system CPU time consumed so far, in milliseconds. */
  cpuMs: number;
}

/** Reads /proc/<pid>/status (VmRSS, VmHWM) and /proc/<pid>/stat (utime + stime). */
export function sampleProcess(pid: number): ProcessSample {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the parenthesised command name, which may itself contain spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { rssKiB: kib("VmRSS"), peakRssKiB: kib("VmHWM"), cpuMs: (ticks * 1000) / clockTicksPerSecond };
}

/**
 * CPU time so far of each thread of a process, in milliseconds, summed by thread name (Bun names its
 * threads: "HTTP Client" for fetch, "Worker" for a Worker, "JITWorker", ...; the main thread is "bun").
 */
export function sampleThreads(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const tid of tasks) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue; // The thread ended in between.
    }
    const rawName = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const name = Number(tid) === pid ? "main" : rawName.replace(/\s*\d+$/, "");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerSecond;
    byName.set(name, (byName.get(name) ?? 0) + ms);
  }
  return byName;
}

/** Runs a command to its end; throws with its output when it fails. */
export async function run(argv: string[], env: Record<string, string | undefined>, cwd?: string): Promise<string> {
  const child = Bun.spawn(argv, { env, cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`${argv.slice(0, 4).join(" ")} ... failed (${code}): ${stderr || stdout}`);
  return stdout;
}
