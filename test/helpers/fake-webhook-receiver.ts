/** One POST the receiver got: its headers (lower-cased names) and its raw body. */
export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
}

export interface FakeWebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** The next `count` deliveries are answered with `status` (then 204 again). */
  failNext(count: number, status?: number): void;
  /** Resolves once `count` deliveries have arrived (whatever they were answered). */
  waitForDeliveries(count: number): Promise<void>;
  close(): Promise<void>;
}

/** A webhook endpoint on port 0 that records what it is sent, and can refuse deliveries to test retries. */
export function startFakeWebhookReceiver(): FakeWebhookReceiver {
  const received: ReceivedWebhook[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let failures: { count: number; status: number } = { count: 0, status: 500 };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const body = await request.text();
      received.push({ headers: Object.fromEntries(request.headers), body });
      for (const waiter of waiters.filter((item) => received.length >= item.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      if (failures.count > 0) {
        failures.count--;
        return new Response("not now", { status: failures.status });
      }
      return new Response(null, { status: 204 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hooks/tollgate`,
    received,
    failNext(count, status = 500) {
      failures = { count, status };
    },
    waitForDeliveries(count) {
      if (received.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    async close() {
      await server.stop(true);
    },
  };
}
