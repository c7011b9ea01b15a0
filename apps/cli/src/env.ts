import { readStorageEnvironment, type StorageEnvironment } from "@tollgate/db";

/**
 * The only place the CLI reads process.env: the storage variables, parsed by the schema the server uses
 * (packages/db), so both read DATABASE_URL, TOLLGATE_DATA_DIR and TOLLGATE_SECRET alike. Throws a one-line
 * message when one is malformed.
 */
export function readCliEnvironment(source: Record<string, string | undefined> = process.env): StorageEnvironment {
  return readStorageEnvironment(source);
}

/** One variable by name, for flags that name one (`--key-env OPENAI_API_KEY`). */
export function readVariable(name: string, source: Record<string, string | undefined> = process.env): string | undefined {
  return source[name];
}
