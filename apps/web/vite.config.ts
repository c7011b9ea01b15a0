import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

// `bun run --cwd apps/web build` writes dist/, which the console serves. In development, `vite` proxies the
// API to a running server (npm start on port 3000 by default).
const apiTarget = process.env.TOLLGATE_CONSOLE_URL ?? "http://localhost:3000";

/**
 * Writes file.br and file.gz beside each built script, style sheet and page, compressed once at build time
 * at the highest levels (brotli 11 takes about a second for the main bundle, too slow per request); the
 * console's static handler sends the variant a browser accepts.
 */
function precompress(): Plugin {
  return {
    name: "tollgate-precompress",
    apply: "build",
    writeBundle(options, bundle) {
      for (const [fileName, output] of Object.entries(bundle)) {
        if (!/\.(js|css|html|svg)$/.test(fileName)) continue;
        const source = output.type === "chunk" ? output.code : output.source;
        const bytes = typeof source === "string" ? Buffer.from(source) : Buffer.from(source);
        if (bytes.length < 1024) continue;
        const path = join(options.dir!, fileName);
        writeFileSync(`${path}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }));
        writeFileSync(`${path}.gz`, gzipSync(bytes, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  plugins: [react(), tailwindcss(), precompress()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false },
  server: { proxy: { "/trpc": apiTarget, "/v1": apiTarget } },
});
