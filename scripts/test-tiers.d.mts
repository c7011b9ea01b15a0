/** Types of scripts/test-tiers.mjs (plain JavaScript: the bootstrap runs on Node before Bun exists). */
export type Tier = "unit" | "integration" | "e2e";
export declare const TIERS: readonly Tier[];
export declare const E2E_FILES: readonly string[];
export declare const INTEGRATION_FILES_BESIDE_CODE: readonly string[];
export declare function tierOf(path: string): Tier;
export declare function listTestFiles(root: string): string[];
export declare function testFilesOf(root: string, tiers: readonly Tier[]): string[];
