# syntax=docker/dockerfile:1
# One image, one entry (apps/server): the gateway and the console on one port by default (`npm start`),
# `bun apps/server/src/index.ts gateway` for the gateway alone, `... console` for the console alone.
# Build: docker build -t tollgate .   Run: see compose.yaml (DATABASE_URL, TOLLGATE_SECRET, REDIS_URL).
# Keep the Bun version in step with devDependencies.bun in package.json.
ARG BUN_VERSION=1.4.5

FROM oven/bun:${BUN_VERSION} AS base
WORKDIR /app

# Workspace manifests first, so that dependencies are reinstalled only when they change. A new workspace
# needs its package.json listed here too (a frozen install fails when the lockfile names one that is missing).
FROM base AS manifests
COPY package.json bun.lock ./
COPY apps/cli/package.json apps/cli/
COPY apps/console/package.json apps/console/
COPY apps/gateway/package.json apps/gateway/
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
COPY packages/admin/package.json packages/admin/
COPY packages/db/package.json packages/db/
COPY packages/shared/package.json packages/shared/
COPY packages/upstream/package.json packages/upstream/

# Everything, dev tools included, to build the console's SPA with Vite.
FROM manifests AS build-web
RUN --mount=type=cache,target=/root/.bun/install/cache bun install --frozen-lockfile
COPY . .
RUN bun run --cwd apps/web build

# Runtime dependencies only (no Vite, TypeScript, drizzle-kit or the npm `bun` package).
FROM manifests AS production-dependencies
RUN --mount=type=cache,target=/root/.bun/install/cache bun install --frozen-lockfile --production

FROM base AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    LOG_LEVEL=info \
    # Bun's fetch keeps at most 256 requests in flight per process by default and queues the rest: a
    # gateway relaying long streams needs far more concurrent upstream calls (65535 at most).
    BUN_CONFIG_MAX_HTTP_REQUESTS=16384 \
    # The collector paced as for 512 MiB of RAM rather than the host's (as scripts/bootstrap.mjs does):
    # garbage of finished requests is collected sooner; see bench/README.md.
    BUN_JSC_forceRAMSize=536870912
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=production-dependencies /app/apps ./apps
COPY --from=production-dependencies /app/packages ./packages
COPY package.json bun.lock tsconfig.json ./
COPY drizzle ./drizzle
COPY packages ./packages
COPY apps/server/src ./apps/server/src
COPY apps/gateway/src ./apps/gateway/src
COPY apps/cli/src ./apps/cli/src
COPY apps/console/src ./apps/console/src
COPY --from=build-web /app/apps/web/dist ./apps/web/dist
# The embedded database's folder, for a single container without DATABASE_URL (mount a volume there).
RUN mkdir -p /app/data && chown -R bun:bun /app/data
ENV TOLLGATE_DATA_DIR=/app/data
USER bun
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["bun", "-e", "fetch(`http://127.0.0.1:${process.env.PORT ?? 3000}/healthz`).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# What `npm start` runs, without its install step (dependencies are in the image).
CMD ["bun", "apps/server/src/index.ts"]
