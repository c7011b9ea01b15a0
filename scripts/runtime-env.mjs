// Environment every Tollgate server process starts with unless the operator sets it: read by
// scripts/bootstrap.mjs (`npm start` and the other tasks) and by the benches (bench/lib/stack.ts), which
// measure the server as it is run. The Dockerfile states the same values.
export const runtimeEnvDefaults = {
  // Bun's fetch keeps at most 256 upstream requests in flight per process by default and queues the rest:
  // a gateway holding a thousand streams must not.
  BUN_CONFIG_MAX_HTTP_REQUESTS: "16384",
  // JavaScriptCore paces its collector by the machine's RAM: on a large machine the heap counts as small and
  // may double before a full collection, so finished requests' objects (and the native memory they hold)
  // pile up. Paced as if the machine had 512 MiB, a gateway at 1,000 streams stays under 200 MB
  // (bench/README.md); it is pacing, not a limit: the heap still grows past it when it must.
  BUN_JSC_forceRAMSize: "536870912",
};

/** `runtimeEnvDefaults` under what `env` already sets. */
export function withRuntimeDefaults(env) {
  const merged = { ...env };
  for (const [name, value] of Object.entries(runtimeEnvDefaults)) merged[name] ??= value;
  return merged;
}
