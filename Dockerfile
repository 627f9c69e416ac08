# The gateway's container image: `podman build --format docker -t llm-gateway .` (or `docker build`;
# podman's default OCI format has no HEALTHCHECK and drops it with a warning).
#
# Two stages on one base (a build argument, so a team can swap in its own Debian-based image):
# `build` installs every dependency with the compiler the native SQLite driver needs and bundles
# the sources into dist/; the runtime stage gets Node.js, the production dependencies and dist/
# only: no sources, tests, bench or compiler. It runs as the fixed non-root user 10001 and works on
# a read-only root filesystem: the only paths it writes are GATEWAY_DATA_DIR (a volume) and /tmp.
#
#   podman run --read-only -p 8080:8080 -v gateway-data:/var/lib/gateway \
#     -v ./gateway.yaml:/etc/gateway/gateway.yaml:ro -e GATEWAY_MASTER_KEY=... llm-gateway
#
# Build arguments:
#   BASE_IMAGE          the base of both stages; pin it by digest for a reproducible build, e.g.
#                       --build-arg BASE_IMAGE=docker.io/library/debian:trixie-slim@sha256:<digest>
#                       (`podman image inspect --format '{{.Digest}}' debian:trixie-slim` after a pull)
#   VERSION, REVISION   the release and the git commit, as OCI labels
#                       (--build-arg VERSION=0.1.0 --build-arg REVISION=$(git rev-parse HEAD))
#   SOURCE, LICENSES    the repository's URL and the SPDX licence expression, as labels
#   TYPESCRIPT_PLUGINS  true keeps tsx and esbuild (~12 MB) so that custom plugins may be .ts files;
#                       by default the image loads JavaScript plugins only (compile yours first)
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
 && npm prune --omit=dev
# What never runs: better-sqlite3's sources and build leftovers (only its .node is loaded),
# TypeScript sources and declarations, source maps, docs, tests, the OpenTelemetry packages' ESM
# builds (Node loads their CommonJS build, `main`/`exports`) and the incubating semantic
# conventions (the gateway's own are compiled into its bundle; the SDK reads the stable ones);
# tsx and esbuild unless TypeScript plugins are wanted.
ARG TYPESCRIPT_PLUGINS=false
RUN mv node_modules/better-sqlite3/build/Release/better_sqlite3.node /tmp/ \
 && rm -rf node_modules/better-sqlite3/deps node_modules/better-sqlite3/src node_modules/better-sqlite3/build \
 && mkdir -p node_modules/better-sqlite3/build/Release \
 && mv /tmp/better_sqlite3.node node_modules/better-sqlite3/build/Release/ \
 && rm -rf node_modules/@types node_modules/@opentelemetry/*/build/esm node_modules/@opentelemetry/*/build/esnext \
      node_modules/@opentelemetry/semantic-conventions/dist/index-incubating.* \
      node_modules/@opentelemetry/semantic-conventions/dist/experimental_* \
 && find node_modules -type d \( -name test -o -name tests -o -name __tests__ \) -prune -exec rm -rf {} + \
 && find node_modules -type f \( -name '*.map' -o -name '*.ts' -o -name '*.mts' -o -name '*.cts' \
      -o \( -name '*.md' ! -iname 'license*' \) \) -delete \
 && if [ "$TYPESCRIPT_PLUGINS" != true ]; then \
      rm -rf node_modules/tsx node_modules/esbuild node_modules/@esbuild node_modules/.bin/tsx node_modules/.bin/esbuild; \
    fi

FROM ${BASE_IMAGE}
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG SOURCE=
ARG LICENSES=NOASSERTION
LABEL org.opencontainers.image.title="llm-gateway" \
      org.opencontainers.image.description="An OpenAI-compatible LLM API gateway with a configurable plugin pipeline" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="${LICENSES}"
ENV DEBIAN_FRONTEND=noninteractive
# Debian's Node.js without what a server never reads: docs (the copyright files stay), manuals,
# translations, corepack and bundled type declarations (dpkg leaves them out, as a slim image does).
RUN printf '%s\n' 'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright' \
      'path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/locale/*' \
      'path-exclude=/usr/share/nodejs/corepack/*' 'path-exclude=/usr/share/nodejs/@types/*' \
      'path-exclude=/usr/share/nodejs/undici-types/*' > /etc/dpkg/dpkg.cfg.d/slim-image \
 && apt-get update \
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
# MALLOC_MMAP_THRESHOLD_: as `npm start` sets it (package.json): large blocks freed after start-up
# go back to the system instead of staying resident (~6 MiB at idle; bench/README.md, issue 37).
ENV NODE_ENV=production \
    GATEWAY_CONFIG=/etc/gateway/gateway.yaml \
    GATEWAY_DATA_DIR=/var/lib/gateway \
    HOST=0.0.0.0 \
    PORT=8080 \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=131072
VOLUME ["/var/lib/gateway"]
EXPOSE 8080
USER 10001:10001
# What the orchestrators without probes of their own (docker, podman, compose) use; Kubernetes
# ignores it and probes the same endpoint (deploy/kubernetes). 200 whenever the process serves.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/v1/system/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# What `npm start` runs (package.json), without npm: node gets SIGTERM itself, drains the requests in
# flight, flushes the call log, then exits 0.
CMD ["node", "dist/main.mjs"]
