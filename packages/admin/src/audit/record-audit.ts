import { auditLog, type Database } from "@tollgate/db";
import { desc, sql } from "drizzle-orm";
import { type Actor, auditIdentityOf } from "../actor";
import { auditRowHash, GENESIS_HASH } from "./audit-hash";
import { redactSecrets } from "./redact-secrets";

export type DatabaseTransaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

/** Serialises the audit chain's writers (any advisory-lock id will do, distinct from the others). */
export const AUDIT_CHAIN_LOCK_ID = 7_201_926;

export interface AuditEntry {
  /** `<object type>.<verb>`, e.g. `token.create`. */
  action: string;
  objectType: string;
  objectId: string | number | null;
  /** The object before and after (rows or views); secrets are redacted here. Null: it did not exist. */
  before: unknown;
  after: unknown;
}

/**
 * Appends one row to the audit log inside the change's own transaction, so that the change and its record
 * commit together or not at all. The advisory lock (held to commit) makes concurrent writers, on any
 * instance, chain one after another: each reads the hash of the row committed before it.
 */
export async function recordAudit(transaction: DatabaseTransaction, actor: Actor, entry: AuditEntry): Promise<void> {
  const identity = auditIdentityOf(actor);
  await transaction.execute(sql`select pg_advisory_xact_lock(${AUDIT_CHAIN_LOCK_ID})`);
  const [last] = await transaction.select({ hash: auditLog.hash }).from(auditLog).orderBy(desc(auditLog.id)).limit(1);
  const fields = {
    at: new Date(),
    actorKind: identity.kind,
    actorId: identity.id,
    actorName: identity.name,
    sourceAddress: identity.address,
    action: entry.action,
    objectType: entry.objectType,
    objectId: entry.objectId === null ? null : String(entry.objectId),
    before: redactSecrets(entry.before),
    after: redactSecrets(entry.after),
    prevHash: last?.hash ?? GENESIS_HASH,
  };
  await transaction.insert(auditLog).values({ ...fields, hash: auditRowHash(fields) });
}
