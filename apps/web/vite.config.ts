import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// `bun run --cwd apps/web build` writes dist/, which the console serves. In development, `vite` proxies the
// API to a running server (npm start on port 3000 by default).
const apiTarget = process.env.TOLLGATE_CONSOLE_URL ?? "http://localhost:3000";

export default defineConfig({
  plugins: [react(), tailwindcss()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1500 },
  server: { proxy: { "/trpc": apiTarget, "/v1": apiTarget } },
});
