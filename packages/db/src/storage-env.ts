import { z } from "zod";

/** A variable that may be absent: set to the empty string, it counts as unset (compose's `${X:-}`). */
export function optionalVariable<Schema extends z.ZodType>(schema: Schema) {
  return z.literal("").transform(() => undefined).or(schema.optional());
}

/**
 * Where the data lives and how its upstream keys are sealed: the variables of every process that opens the
 * database (the server, whatever its mode, and the operator CLI). Entries extend this shape with their own.
 */
export const storageVariables = {
  /** postgres://...; unset: the embedded PGlite in TOLLGATE_DATA_DIR. */
  DATABASE_URL: optionalVariable(z.string().url()),
  /** Embedded database, generated secret, server.json (and by default the usage spool). */
  TOLLGATE_DATA_DIR: optionalVariable(z.string()).transform((value) => value ?? "./data"),
  /** Encrypts upstream keys at rest; required with DATABASE_URL, the same on every process sharing it. */
  TOLLGATE_SECRET: optionalVariable(z.string().min(16)),
  /**
   * "false" refuses loopback and private-network addresses as channel base URLs and webhook URLs (link-local
   * and cloud metadata addresses are refused either way); read by every process that saves or uses them.
   */
  UPSTREAM_ALLOW_PRIVATE_NETWORKS: z.enum(["true", "false"]).default("true").transform((value) => value === "true"),
};

const storageSchema = z.object(storageVariables);

/** The storage variables, named for the code that uses them. */
export interface StorageEnvironment {
  databaseUrl?: string;
  dataDir: string;
  secret?: string;
  /** UPSTREAM_ALLOW_PRIVATE_NETWORKS. */
  allowPrivateNetworks: boolean;
}

/** "VARIABLE: problem" for each malformed variable, for the message an entry gives before it stops. */
export function environmentIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}

/** Reads the storage variables; throws a one-line message naming each malformed variable. */
export function readStorageEnvironment(source: Record<string, string | undefined> = process.env): StorageEnvironment {
  const parsed = storageSchema.safeParse(source);
  if (!parsed.success) throw new Error(`invalid environment: ${environmentIssues(parsed.error).join("; ")}`);
  return { databaseUrl: parsed.data.DATABASE_URL, dataDir: parsed.data.TOLLGATE_DATA_DIR, secret: parsed.data.TOLLGATE_SECRET, allowPrivateNetworks: parsed.data.UPSTREAM_ALLOW_PRIVATE_NETWORKS };
}
