import { setDefaultTimeout } from "bun:test";

// Tests that start servers and databases can exceed Bun's 5 s default on a busy 2-core machine. This bounds a
// hang; tests wait for conditions, never for guessed durations.
setDefaultTimeout(60_000);
