import { type Database, resultRows } from "@tollgate/db";
import { sql } from "drizzle-orm";

type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

/**
 * Inserts a row whose sealed secrets are bound to its own id (channels' keys, MCP servers' credentials): the
 * id is drawn from `table`'s sequence first, in the insert's transaction, so that the row is written once,
 * already sealed for itself. Returns the id.
 */
export async function insertWithDrawnId(db: Database, table: string, insert: (transaction: Transaction, id: number) => Promise<unknown>): Promise<number> {
  return db.transaction(async (transaction) => {
    const [next] = resultRows(await transaction.execute(sql`select nextval(pg_get_serial_sequence(${table}, 'id')) as id`));
    if (!next) throw new Error(`no ${table} id was drawn`);
    const id = Number(next.id);
    await insert(transaction, id);
    return id;
  });
}
