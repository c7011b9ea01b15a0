import { z } from "zod";

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value));

const schema = z.object({
  /** postgres://... ; when absent the CLI works on the embedded database in TOLLGATE_DATA_DIR. */
  DATABASE_URL: optionalText,
  TOLLGATE_DATA_DIR: optionalText.transform((value) => value ?? "./data"),
  /** Encryption secret for upstream keys; in embedded mode a generated one in the data folder is used. */
  TOLLGATE_SECRET: optionalText,
});

export interface CliEnvironment {
  databaseUrl?: string;
  dataDir: string;
  secret?: string;
}

/** The only place the CLI reads process.env. */
export function readCliEnvironment(source: Record<string, string | undefined> = process.env): CliEnvironment {
  const parsed = schema.parse({
    DATABASE_URL: source.DATABASE_URL,
    TOLLGATE_DATA_DIR: source.TOLLGATE_DATA_DIR,
    TOLLGATE_SECRET: source.TOLLGATE_SECRET,
  });
  return { databaseUrl: parsed.DATABASE_URL, dataDir: parsed.TOLLGATE_DATA_DIR, secret: parsed.TOLLGATE_SECRET };
}

/** One variable by name, for flags that name one (`--key-env OPENAI_API_KEY`). */
export function readVariable(name: string, source: Record<string, string | undefined> = process.env): string | undefined {
  return source[name];
}
