# casekit's container: `casekit serve` on a SQLite file in the /data volume by default, or on
# PostgreSQL with CASEKIT_DATABASE=postgres://… (see compose.yaml). README, "Operations".
#
# Three stages on the same Debian release and Node version, so the native SQLite addon built in
# one runs in the other: the build (all dependencies, tsup), the production dependencies (the
# addon compiled against this Node), and the small runtime that gets only what `casekit` runs.

FROM node:20.20-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No install scripts: the package's own `prepare` would build before the sources are here.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npx tsup

FROM node:20.20-bookworm AS production-dependencies
WORKDIR /src
COPY package.json package-lock.json ./
# Without dev dependencies (better-sqlite3 and pg stay: optional peers the lockfile pins), then
# only better-sqlite3's install script, which fetches or compiles its addon (the toolchain is here).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3 \
 && npm cache clean --force

FROM node:20.20-bookworm-slim
ENV NODE_ENV=production \
    CASEKIT_DATABASE=/data/casekit.db \
    CASEKIT_HOST=0.0.0.0 \
    CASEKIT_PORT=3000
WORKDIR /app
COPY package.json ./
COPY bin ./bin
COPY adapters/sqlite/migrations ./adapters/sqlite/migrations
COPY adapters/postgres/migrations ./adapters/postgres/migrations
COPY --from=production-dependencies /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
# The code stays root's and read-only; the database and its key-hash secret go to /data, the
# unprivileged `node` user's (uid 1000, from the base image).
RUN mkdir /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
# Ready once the database answers; Node's own fetch, no curl in the image.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.CASEKIT_PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/casekit.mjs"]
CMD ["serve", "--host", "0.0.0.0"]
