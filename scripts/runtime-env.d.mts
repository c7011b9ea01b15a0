/** Types of scripts/runtime-env.mjs (plain JavaScript: the bootstrap runs on Node before Bun exists). */
export declare const runtimeEnvDefaults: { readonly BUN_CONFIG_MAX_HTTP_REQUESTS: string; readonly BUN_JSC_forceRAMSize: string };
export declare function withRuntimeDefaults<T extends Record<string, string | undefined>>(env: T): T & typeof runtimeEnvDefaults;
