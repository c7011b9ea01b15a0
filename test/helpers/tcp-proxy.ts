import type { Socket, TCPSocketListener } from "bun";

/**
 * A TCP proxy on 127.0.0.1 that a test can take down and bring back on the same port, to simulate a
 * database outage for one gateway without stopping the server other tests share.
 */
export interface TcpProxy {
  port: number;
  /** Closes every proxied connection and stops accepting new ones. */
  down(): void;
  /** Accepts connections again on the same port. */
  up(): void;
  /**
   * Freezes every open connection whose client has sent text matching `sent` (e.g. a LISTEN): from now on
   * nothing passes in either direction and nothing is closed, like a backend that stopped. New connections
   * pass. Returns how many were frozen.
   */
  freeze(sent: RegExp): number;
  /** Connections (open or closed) whose client has sent text matching `sent`. */
  countSent(sent: RegExp): number;
  close(): void;
}

interface Pair {
  client: Socket<Pair>;
  upstream: Socket<{ client: Socket<Pair> }> | null;
  pending: Uint8Array[];
  /** The first bytes the client sent, as text (protocol messages carry their SQL as plain text). */
  sent: string;
  frozen: boolean;
}

const SENT_TEXT_KEPT = 16_384;

export function startTcpProxy(targetHost: string, targetPort: number): TcpProxy {
  const pairs = new Set<Pair>();
  const history: Pair[] = [];
  let listener: TCPSocketListener<Pair> | null = null;
  let port = 0;

  const listen = () => {
    listener = Bun.listen<Pair>({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(client) {
          const pair: Pair = { client, upstream: null, pending: [], sent: "", frozen: false };
          client.data = pair;
          pairs.add(pair);
          history.push(pair);
          Bun.connect<{ client: Socket<Pair> }>({
            hostname: targetHost,
            port: targetPort,
            data: { client },
            socket: {
              open(upstream) {
                pair.upstream = upstream;
                for (const chunk of pair.pending) upstream.write(chunk);
                pair.pending = [];
              },
              data(_upstream, chunk) {
                if (!pair.frozen) client.write(chunk);
              },
              close() {
                client.end();
              },
              error() {
                client.end();
              },
            },
          }).catch(() => client.end());
        },
        data(client, chunk) {
          const pair = client.data;
          if (pair.sent.length < SENT_TEXT_KEPT) pair.sent += new TextDecoder().decode(chunk);
          if (pair.frozen) return;
          if (pair.upstream) pair.upstream.write(chunk);
          else pair.pending.push(new Uint8Array(chunk));
        },
        close(client) {
          client.data?.upstream?.end();
          pairs.delete(client.data);
        },
        error(client) {
          client.data?.upstream?.end();
        },
      },
    });
    port = listener.port;
  };

  listen();
  return {
    get port() {
      return port;
    },
    down() {
      listener?.stop(true);
      listener = null;
      for (const pair of pairs) {
        pair.client.terminate();
        pair.upstream?.terminate();
      }
      pairs.clear();
    },
    up() {
      if (!listener) listen();
    },
    freeze(sent) {
      let frozen = 0;
      for (const pair of pairs) {
        if (!pair.frozen && sent.test(pair.sent)) {
          pair.frozen = true;
          frozen++;
        }
      }
      return frozen;
    },
    countSent(sent) {
      return history.filter((pair) => sent.test(pair.sent)).length;
    },
    close() {
      this.down();
    },
  };
}
