/**
 * What the fake upstreams share: a real HTTP server on 127.0.0.1 and a free port, the requests it saw in
 * order (with a wait for a count of them), a first-in-first-out queue of the behaviours of coming requests,
 * a request body read as JSON or text, and the key a request presented. Each fake (fake-openai-upstream.ts,
 * fake-openai-responses-upstream.ts, fake-openai-media-upstream.ts, fake-anthropic-upstream.ts,
 * fake-gemini-upstream.ts) keeps only its wire format.
 */

export interface FakeServer {
  /** "http://127.0.0.1:PORT", without a path. */
  origin: string;
  close(): Promise<void>;
}

export interface FakeServerOptions {
  fetch(request: Request): Response | Promise<Response>;
  /**
   * Seconds a connection may idle before Bun closes it; 0 never does, for fakes that hold a stalled stream
   * or a hung request open until the client gives up. Bun's default (10 s) when absent.
   */
  idleTimeout?: number;
}

/** Serves `fetch` on 127.0.0.1 and a port the system chooses (port 0: never a fixed one). */
export function startFakeServer({ fetch, idleTimeout }: FakeServerOptions): FakeServer {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, ...(idleTimeout === undefined ? {} : { idleTimeout }), fetch });
  return {
    origin: `http://127.0.0.1:${server.port}`,
    async close() {
      await server.stop(true);
    },
  };
}

/** A streamed answer of `frames`, one per pull (a client reads them one by one as an upstream sends them), then its end. */
export function framesResponse(frames: readonly Uint8Array[], contentType: string): Response {
  let next = 0;
  return new Response(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (next < frames.length) controller.enqueue(frames[next++]!);
        else controller.close();
      },
    }),
    { headers: { "content-type": contentType } },
  );
}

/** The behaviours of coming requests, first in first out; when none is queued, the default answers. */
export class BehaviourQueue<Behaviour> {
  private readonly queued: Behaviour[] = [];

  constructor(private fallback: Behaviour) {}

  enqueue(behaviour: Behaviour): void {
    this.queued.push(behaviour);
  }

  setDefault(behaviour: Behaviour): void {
    this.fallback = behaviour;
  }

  /** The behaviour of the request being answered: the first queued one (taken off the queue), or the default. */
  next(): Behaviour {
    return this.queued.shift() ?? this.fallback;
  }
}

/** The requests a fake saw, in order; `waitFor` resolves once there are that many (a condition, not a sleep). */
export class RequestLog<Seen> {
  /** The same array for the fake's whole life: tests keep and read it. */
  readonly requests: Seen[] = [];
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];

  record(seen: Seen): void {
    this.requests.push(seen);
    for (const waiter of [...this.waiters]) {
      if (this.requests.length >= waiter.count) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }

  waitFor(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }
}

/** A request's body: the parsed JSON; the raw text when it is not JSON (isInvalidJson); undefined when empty. */
export async function readJsonOrText(request: Request): Promise<{ body: any; isInvalidJson: boolean }> {
  const text = await request.text();
  if (text === "") return { body: undefined, isInvalidJson: false };
  try {
    return { body: JSON.parse(text), isInvalidJson: false };
  } catch {
    return { body: text, isInvalidJson: true };
  }
}

/** The key a request presented: Azure OpenAI's `api-key` header, or a bearer token as OpenAI and the vendors send it. */
export function presentedKey(request: Request): string | undefined {
  return request.headers.get("api-key") ?? request.headers.get("authorization")?.replace(/^Bearer /, "");
}
