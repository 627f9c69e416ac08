# The gateway's container image: `podman build -t llm-gateway .` (or `docker build`).
#
# Two stages on one base (a build argument, so a team can swap in its own Debian-based image):
# `build` installs every dependency with the compiler the native SQLite driver needs and bundles
# the sources into dist/; the runtime stage gets Node.js, the production dependencies and dist/
# only: no sources, tests, bench or compiler. It runs as the fixed non-root user 10001 and works on
# a read-only root filesystem: the only paths it writes are GATEWAY_DATA_DIR (a volume) and /tmp.
#
#   podman run --read-only -p 8080:8080 -v gateway-data:/var/lib/gateway \
#     -v ./gateway.yaml:/etc/gateway/gateway.yaml:ro -e GATEWAY_MASTER_KEY=... llm-gateway
ARG BASE_IMAGE=docker.io/library/debian:trixie-slim

FROM ${BASE_IMAGE} AS build
ENV DEBIAN_FRONTEND=noninteractive
# Debian 13 ships Node.js 20.19 as `nodejs`; libnode-dev has the headers better-sqlite3 builds
# against when no prebuilt binary can be fetched.
# (dpkg's fsync per file is most of the time of installing Debian's npm, hundreds of small
# packages: skipped in this throwaway stage.)
RUN echo force-unsafe-io > /etc/dpkg/dpkg.cfg.d/unsafe-io \
 && apt-get update \
 && apt-get install -y --no-install-recommends nodejs npm libnode-dev python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /build
ENV npm_config_nodedir=/usr npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
COPY package.json package-lock.json ./
RUN npm ci
COPY scripts/build.ts scripts/container-config.ts scripts/
COPY gateway.yaml ./
COPY tsconfig.json ./
COPY schemas schemas/
COPY src src/
COPY console console/
RUN npm run build \
 && npx tsx scripts/container-config.ts gateway.yaml > image-gateway.yaml \
 && npm prune --omit=dev \
 && rm -rf node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
      node_modules/better-sqlite3/build/Release/obj* node_modules/better-sqlite3/build/Release/.deps \
 && find node_modules -name '*.map' -delete

FROM ${BASE_IMAGE}
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends nodejs ca-certificates \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt /var/log/dpkg.log \
 && groupadd --gid 10001 gateway \
 && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin gateway \
 && mkdir -p /etc/gateway /var/lib/gateway \
 && chown 10001:10001 /var/lib/gateway
WORKDIR /app
COPY --from=build /build/package.json ./
COPY --from=build /build/node_modules node_modules/
COPY --from=build /build/dist dist/
# A starting configuration (the repository's sample, aimed at a mock upstream on the host, without
# its public demo key and account: only GATEWAY_MASTER_KEY gets in): mount your own gateway.yaml
# over it, read-only (a Kubernetes ConfigMap is).
COPY --from=build /build/image-gateway.yaml /etc/gateway/gateway.yaml
# MALLOC_ARENA_MAX=2: glibc's per-thread malloc arenas (main, the SQLite log's worker, libuv's
# pool) held ~3 MiB at idle and ~7 MiB under load beyond two (bench/README.md, issue 18).
ENV NODE_ENV=production \
    GATEWAY_CONFIG=/etc/gateway/gateway.yaml \
    GATEWAY_DATA_DIR=/var/lib/gateway \
    HOST=0.0.0.0 \
    PORT=8080 \
    MALLOC_ARENA_MAX=2
VOLUME ["/var/lib/gateway"]
EXPOSE 8080
USER 10001:10001
# What `npm start` runs (package.json), without npm: node gets SIGTERM itself, drains the requests in
# flight, flushes the call log, then exits 0.
CMD ["node", "dist/main.mjs"]
