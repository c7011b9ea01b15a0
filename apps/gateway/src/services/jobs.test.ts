import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Logger } from "../logger";
import { startJobs } from "./jobs";

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await Bun.sleep(1);
}

const silent: Logger = () => {};

describe("jobs", () => {
  test("each job runs every interval, and once at start when it asks to", async () => {
    const runs = { atStart: 0, later: 0 };
    const running = startJobs(
      [
        { name: "at-start", intervalMs: 60_000, runAtStart: true, run: () => runs.atStart++ },
        { name: "later", intervalMs: 1, run: () => runs.later++ },
      ],
      silent,
    );
    expect(runs).toEqual({ atStart: 1, later: 0 });
    await waitFor(() => runs.later >= 3);
    running.stop();
  });

  test("a pass still running is not started again on the next ticks; the one after it settles runs", async () => {
    let started = 0;
    let release: () => void = () => {};
    const running = startJobs(
      [{ name: "slow", intervalMs: 1, run: () => (started++, new Promise<void>((resolve) => (release = resolve))) }],
      silent,
    );
    await waitFor(() => started === 1);
    // A witness on the same 1 ms period: while it runs five times, the slow job's timer fired as often.
    let witnessed = 0;
    const witness = startJobs([{ name: "witness", intervalMs: 1, run: () => witnessed++ }], silent);
    await waitFor(() => witnessed >= 5);
    expect(started).toBe(1);
    release();
    await waitFor(() => started === 2);
    witness.stop();
    running.stop();
    release();
  });

  test("stop resolves only once a pass still running has settled (what it uses is closed after it), and gives up after its grace", async () => {
    let release: () => void = () => {};
    let settled = false;
    const running = startJobs(
      [{ name: "in-flight", intervalMs: 60_000, runAtStart: true, run: () => new Promise<void>((resolve) => (release = resolve)).then(() => void (settled = true)) }],
      silent,
    );
    let stopped = false;
    const stopping = running.stop().then(() => (stopped = true));
    await Bun.sleep(20);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(settled).toBe(true);
    // A pass that never settles holds stop() no longer than the grace given, and is named in the log.
    const logged: string[] = [];
    const stuck = startJobs([{ name: "stuck", intervalMs: 60_000, runAtStart: true, run: () => new Promise<void>(() => {}) }], (_level, message, fields) =>
      logged.push(`${message} ${JSON.stringify(fields)}`),
    );
    const started = performance.now();
    await stuck.stop(50);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(logged).toEqual(['background jobs still running at stop {"jobs":["stuck"]}']);
  });

  test("stop clears every timer: none is left active and no job runs again", async () => {
    let runs = 0;
    const running = startJobs(
      Array.from({ length: 5 }, (_, index) => ({ name: `job-${index}`, intervalMs: 1, run: () => runs++ })),
      silent,
    );
    expect(running.active).toBe(5);
    await waitFor(() => runs >= 5);
    running.stop();
    expect(running.active).toBe(0);
    const stoppedAt = runs;
    // A witness on the same 1 ms period: while it runs three times, a surviving timer would have run too.
    let witnessed = 0;
    const witness = startJobs([{ name: "witness", intervalMs: 1, run: () => witnessed++ }], silent);
    await waitFor(() => witnessed >= 3);
    witness.stop();
    expect(runs).toBe(stoppedAt);
  });

  test("a job that throws or rejects is logged by name and keeps its schedule", async () => {
    const logged: Array<Record<string, unknown> | undefined> = [];
    let runs = 0;
    const running = startJobs(
      [
        {
          name: "flaky",
          intervalMs: 1,
          run() {
            runs++;
            if (runs % 2 === 0) throw new Error("thrown");
            return Promise.reject(new Error("rejected"));
          },
        },
      ],
      (_level, _message, fields) => logged.push(fields),
    );
    await waitFor(() => runs >= 4 && logged.length >= 4);
    running.stop();
    expect(logged.map((fields) => fields?.job)).toContain("flaky");
    expect(logged.map((fields) => fields?.error)).toEqual(expect.arrayContaining(["Error: thrown", "Error: rejected"]));
  });

  test("no periodic timer lives outside the job list, but for the spool's fsync (tied to its open file) and the write-behind's own thread", () => {
    const gatewaySource = join(import.meta.dir, "..");
    const withInterval = readdirSync(gatewaySource, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts"))
      .map((entry) => join(entry.parentPath, entry.name))
      .filter((file) => /\bsetInterval\(/.test(readFileSync(file, "utf8")))
      .map((file) => relative(gatewaySource, file))
      .sort();
    expect(withInterval).toEqual(["accounting/usage-spool.ts", "accounting/usage-writer-worker.ts", "services/jobs.ts"]);
  });
});
