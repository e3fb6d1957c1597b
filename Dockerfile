# latchkey as a container: a build stage that compiles (better-sqlite3 needs a C++ toolchain) and a
# slim runtime stage with only what `node dist/main.js` needs. See docs/container.md.

FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json rolldown.config.mjs ./
COPY scripts ./scripts
COPY packages ./packages
COPY src ./src
# The dependencies, then dist/; then the development dependencies go.
RUN npm ci && npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
# tini is PID 1: it forwards SIGTERM to node and reaps zombies, so a stop is a graceful shutdown.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build --chown=root:root /app/package.json ./
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/packages ./packages
COPY --from=build --chown=root:root /app/dist ./dist
COPY LICENSE README.md ./

# The database (and the first start's credentials file) live on a volume owned by the unprivileged user.
RUN mkdir -p /data && chown node:node /data && chmod 700 /data
VOLUME ["/data"]
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    LATCHKEY_DATABASE_URL=sqlite:/data/latchkey.db
EXPOSE 8080
USER node

HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]
