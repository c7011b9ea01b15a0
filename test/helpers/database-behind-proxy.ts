import { type DatabaseHandle, openDatabase } from "@tollgate/db";
import { type FreshDatabase, freshDatabase } from "./fresh-database";
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
