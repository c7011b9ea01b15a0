/**
 * Ceiling for beforeAll/afterAll hooks that create databases and start servers (Bun's hook default is 5 s,
 * which a busy 2-core machine can exceed while a fresh PGlite initialises). Not a tuned timing: tests wait
 * for conditions, and this only bounds a hang.
 */
export const SETUP_TIMEOUT_MS = 60_000;
