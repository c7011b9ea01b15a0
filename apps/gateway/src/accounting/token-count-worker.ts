// Worker thread of the counting thread (token-count-thread.ts): loads the tokenizer once, then counts the
// jobs posted to it, one at a time, and answers each by its id. A job that overruns its deadline gets the
// whole worker terminated by the main thread, so nothing here needs to watch the time.
import { runCountJob } from "./count-job";
import type { FromCountWorker, ToCountWorker } from "./token-count-thread";
import { loadTotalCounter } from "./total-token-counter";

declare const self: Worker;

const send = (message: FromCountWorker) => self.postMessage(message);
const counting = loadTotalCounter();

counting.then(
  () => send({ type: "ready" }),
  (error: unknown) => send({ type: "failed", error: String(error) }),
);

self.addEventListener("message", (event: MessageEvent<ToCountWorker>) => {
  const { id, job } = event.data;
  counting.then((count) => {
    try {
      send({ type: "counted", id, count: runCountJob(job, count) });
    } catch (error) {
      send({ type: "counted", id, error: String(error) });
    }
  });
});
