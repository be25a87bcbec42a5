# syntax=docker/dockerfile:1
# The remote server (serve --remote) in a small image: compiled with the dev dependencies, shipped with
# the runtime ones only, run as the unprivileged `node` user over read-only code. Node 22.19 is the
# floor (undici 8 needs it); the build refuses an older base image.
ARG NODE_VERSION=22

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would build before the sources are here; the build runs below.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY catalog ./catalog
# `npm run build` bundles the server into dist/src (esbuild, a dev dependency; scripts/build-server.ts)
# and each MCP Apps view into one HTML file under dist/apps, which the server reads when a host asks
# for a view.
COPY apps ./apps
# The catalog's input schemas are converted once at build time and bundled with the server.
COPY scripts/build-server.ts scripts/build-schemas.ts scripts/build-apps.ts ./scripts/
RUN npm run build

FROM node:${NODE_VERSION}-alpine AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:${NODE_VERSION}-alpine
RUN node -e "const [a,b]=process.versions.node.split('.').map(Number); if (a < 22 || (a === 22 && b < 19)) { console.error('Node >= 22.19 is required, this image has ' + process.version); process.exit(1); }"
ENV NODE_ENV=production
WORKDIR /app
# Owned by root: the server cannot change its own code or dependencies.
COPY --from=deps /app/node_modules ./node_modules
# The bundle and the views; not dist/unbundled, the same code as separate modules for the bench.
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/apps ./dist/apps
COPY package.json ./
USER node
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "dist/src/cli.js"]
CMD ["serve", "--remote", "--host", "0.0.0.0", "--port", "8080"]
