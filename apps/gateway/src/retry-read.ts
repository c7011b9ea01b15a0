/**
 * A database read retried after short pauses. A connection the server has just closed (a restart, a
 * failover, pg_terminate_backend) fails the query that was sent on it, while the pool opens a new one for
 * the next: without a retry, every key whose cache entry was flushed on the listener's reconnect would
 * get a 503 for that moment. A database that stays away still fails after the last pause.
 */
export async function retryRead<Value>(read: () => Promise<Value>, pausesMs: readonly number[] = [20, 100]): Promise<Value> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      const pause = pausesMs[attempt];
      if (pause === undefined) throw error;
      await Bun.sleep(pause);
    }
  }
}
