import { PendingReplies } from "@tollgate/shared";
import type { CountJob } from "./count-job";

export type ToCountWorker = { id: number; job: CountJob };
export type FromCountWorker =
  | { type: "ready" }
  | { type: "failed"; error: string }
  | { type: "counted"; id: number; count: number }
  | { type: "counted"; id: number; error: string };

/** A count that could not be made (deadline passed, worker failed): the caller bills what it held instead. */
export class TokenCountUnavailable extends Error {
  constructor(reason: string) {
    super(`token count unavailable: ${reason}`);
    this.name = "TokenCountUnavailable";
  }
}

/** Time the worker gets to load the vocabulary (~60 MB of ranks) before its first job; its jobs' deadlines start after. */
const LOAD_DEADLINE_MS = 30_000;

interface RunningWorker {
  worker: Bun.Worker;
  replies: PendingReplies<number>;
  ready: Promise<void>;
}

/**
 * Large counts, off the request thread: one worker, started on the first large count and reused (a worker
 * per count would cost more than most counts), with jobs matched to answers by id. Each job has a
 * deadline; a worker that misses one is terminated with every job it holds (they were queued behind the
 * late one) and those counts are unavailable; the next large count starts a new worker.
 */
export class TokenCountThread {
  private running: RunningWorker | null = null;
  private counting = 0;

  /** Counts asked for and not yet answered (tests wait for one to be in flight). */
  get inFlight(): number {
    return this.counting;
  }

  async count(job: CountJob, deadlineMs: number): Promise<number> {
    this.counting++;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const running = this.start();
      await running.ready;
      const answer = running.replies.expect((id) => running.worker.postMessage({ id, job } satisfies ToCountWorker));
      timer = setTimeout(() => this.discard(running, "deadline passed"), deadlineMs);
      return await answer;
    } finally {
      clearTimeout(timer);
      this.counting--;
    }
  }

  /** Terminates the worker, failing whatever it holds (at shutdown, or in tests). */
  stop(): void {
    if (this.running) this.discard(this.running, "counting stopped");
  }

  private start(): RunningWorker {
    if (this.running) return this.running;
    // The DOM typings of Worker lack ref()/unref(); Bun's own interface has them.
    const worker = new Worker(new URL("./token-count-worker.ts", import.meta.url).href) as unknown as Bun.Worker;
    worker.unref();
    const replies = new PendingReplies<number>(worker);
    let loaded: () => void = () => {};
    let failed: (error: Error) => void = () => {};
    const ready = new Promise<void>((resolve, reject) => {
      loaded = resolve;
      failed = reject;
    });
    // Nobody may be awaiting `ready` when it fails (a worker dying idle).
    ready.catch(() => {});
    const running: RunningWorker = { worker, replies, ready };
    const fail = (reason: string) => {
      clearTimeout(loadTimer);
      failed(new TokenCountUnavailable(reason));
      this.discard(running, reason);
    };
    const loadTimer = setTimeout(() => fail("tokenizer did not load in time"), LOAD_DEADLINE_MS);
    loadTimer.unref?.();
    worker.onmessage = (event) => {
      const message = (event as unknown as MessageEvent<FromCountWorker>).data;
      if (message.type === "ready") {
        clearTimeout(loadTimer);
        loaded();
      } else if (message.type === "failed") fail(`tokenizer did not load: ${message.error}`);
      else if ("error" in message) replies.settle(message.id, { error: new TokenCountUnavailable(message.error) });
      else replies.settle(message.id, { value: message.count });
    };
    worker.onerror = (event) => fail(`worker failed: ${event.message}`);
    worker.addEventListener("close", () => fail("worker exited"));
    this.running = running;
    return running;
  }

  private discard(running: RunningWorker, reason: string): void {
    if (this.running === running) this.running = null;
    running.replies.rejectAll(new TokenCountUnavailable(reason));
    running.worker.terminate();
  }
}
