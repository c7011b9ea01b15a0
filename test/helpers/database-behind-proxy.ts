import { type DatabaseHandle, openDatabase } from "@tollgate/db";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./fake-openai-upstream";
import { type FreshDatabase, freshDatabase } from "./fresh-database";
import { type GatewayUnderTest, seeder, startGateway } from "./gateway-fixture";
import { onPostgresForBlock } from "./postgres-block";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy";

/**
 * A fresh Postgres database (DATABASE_URL's server), and a second handle on it through a TCP proxy that a
 * test cuts (`proxy.down()`) and restores (`proxy.up()`): a database outage on demand for a gateway built
 * on `proxied`, while `database.handle` still reaches it directly.
 */
export interface DatabaseBehindProxy {
  database: FreshDatabase;
  proxy: TcpProxy;
  proxied: DatabaseHandle;
  /** Closes the proxied handle and the proxy, and drops the database (stop the gateway on it first). */
  close(): Promise<void>;
}

export async function databaseBehindProxy(poolSize = 3): Promise<DatabaseBehindProxy> {
  const database = await freshDatabase();
  const target = new URL(database.url!);
  const proxy = startTcpProxy(target.hostname, Number(target.port || 5432));
  const viaProxy = new URL(database.url!);
  viaProxy.port = String(proxy.port);
  const proxied = await openDatabase({ databaseUrl: viaProxy.toString(), poolSize });
  return {
    database,
    proxy,
    proxied,
    async close() {
      await proxied.close();
      proxy.close();
      await database.drop();
    },
  };
}

/**
 * The outage tests' stack (Postgres only): a gateway built on the proxied handle, one channel on a fake
 * OpenAI upstream serving gpt-4o-mini at 1 USD per million tokens either way, and a user whose tokens the
 * tests create. `database.handle` still reaches the database while the proxy is down.
 */
export interface GatewayBehindProxy {
  database: FreshDatabase;
  proxy: TcpProxy;
  upstream: FakeOpenAIUpstream;
  gateway: GatewayUnderTest;
  seed: ReturnType<typeof seeder>;
  userId: number;
  /** A chat completion by `key` through the gateway, asking for `maxTokens` when given. */
  chat(key: string, maxTokens?: number): Promise<Response>;
  /** Restores the proxy (so that the gateway stops cleanly), stops the gateway and the upstream, drops the database. */
  stop(): Promise<void>;
}

async function startGatewayBehindProxy(gatewayOptions: Parameters<typeof startGateway>[1] = {}): Promise<GatewayBehindProxy> {
  const behind = await databaseBehindProxy();
  let upstream: FakeOpenAIUpstream | undefined;
  let gateway: GatewayUnderTest | undefined;
  const stop = async () => {
    behind.proxy.up();
    await gateway?.stop();
    await upstream?.close();
    await behind.close();
  };
  try {
    upstream = await startFakeOpenAIUpstream();
    gateway = await startGateway(behind.proxied, gatewayOptions);
    const seed = seeder(behind.database.handle, gateway.secretBox, [gateway]);
    const userId = (await seed.user()).id;
    await seed.channel({ baseUrl: upstream.url, models: ["gpt-4o-mini"] });
    await seed.price("gpt-4o-mini", 1, 1);
    const running = gateway;
    const chat = (key: string, maxTokens?: number) =>
      running.handle(
        new Request("http://gateway.test/v1/chat/completions", {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], max_tokens: maxTokens }),
        }),
      );
    return { database: behind.database, proxy: behind.proxy, upstream, gateway, seed, userId, chat, stop };
  } catch (error) {
    // A set-up that fails halfway leaves nothing running (afterAll has no stack to stop).
    await stop().catch(() => {});
    throw error;
  }
}

/**
 * That stack for the tests of the calling file or describe block, started before them (on Postgres only:
 * elsewhere the tests skip) and stopped after them; read `.current` inside a test.
 */
export function gatewayBehindProxyForBlock(gatewayOptions: Parameters<typeof startGateway>[1] = {}): { readonly current: GatewayBehindProxy } {
  return onPostgresForBlock(() => startGatewayBehindProxy(gatewayOptions));
}
