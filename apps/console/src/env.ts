import { z } from "zod";

const optionalText = (schema: z.ZodString) => schema.optional().or(z.literal("").transform(() => undefined));

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(3001),
  HOST: z.string().default("0.0.0.0"),
  /** postgres://...; unset: the embedded PGlite in TOLLGATE_DATA_DIR (only while no gateway holds it). */
  DATABASE_URL: optionalText(z.string().url()),
  TOLLGATE_DATA_DIR: z.string().default("./data"),
  /** Must be the gateways' secret: the console encrypts the channel keys they decrypt. */
  TOLLGATE_SECRET: optionalText(z.string().min(16)),
  /** Base URL shown in Quick start (e.g. https://llm.example.com); default: the request's host. */
  TOLLGATE_PUBLIC_URL: optionalText(z.string().url()),
  DATABASE_POOL_SIZE: z.coerce.number().int().positive().default(5),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
});

export type ConsoleEnv = z.infer<typeof schema>;

/** Parses the environment once; exits with a readable message when a variable is malformed. */
export function readConsoleEnv(source: Record<string, string | undefined> = process.env): ConsoleEnv {
  const parsed = schema.safeParse(source);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`).join("\n");
  console.error(`tollgate console: invalid environment\n${problems}`);
  process.exit(2);
}
