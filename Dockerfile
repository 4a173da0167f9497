# One image for the API and every worker role; the command picks which runs (docker-compose.yml,
# deploy/kubernetes/). Build: docker build --build-arg VERSION=<version> --build-arg REVISION=$(git rev-parse HEAD)
# --build-arg CREATED=$(date -u +%FT%TZ) --build-arg SOURCE=<repository URL> -t webloom:<version> .
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

# Compiles the TypeScript. Install scripts stay off as package.json's allowScripts keeps them off
# locally: the image's npm (10) does not read allowScripts, and nothing here needs a script.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs ./scripts/
COPY src ./src
RUN npm run build

# Production dependencies only, in a stage of their own so the build's dev dependencies never
# reach the runtime image. With scripts off, the fixes in patches/ (npm ci's postinstall applies
# them locally) are applied here by hand.
FROM ${NODE_IMAGE} AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && npx --no-install patch-package --error-on-fail

FROM ${NODE_IMAGE} AS runtime
ARG NODE_IMAGE
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown
ARG SOURCE=unknown
LABEL org.opencontainers.image.title="webloom" \
      org.opencontainers.image.description="Self-hostable web content service on Temporal: API and worker roles" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.base.name="${NODE_IMAGE}"
# Debian's Chromium serves the browser role (effort max, the standard fallback, automation).
# tini is PID 1: it forwards SIGTERM to node and reaps Chromium's exited helper processes.
RUN apt-get update \
  && apt-get install -y --no-install-recommends chromium tini ca-certificates \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    CHROMIUM_PATH=/usr/bin/chromium \
    DATA_DIR=/app/data
COPY --from=dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY package.json ./
# The store's migrations, which the API applies at start.
COPY migrations ./migrations
# The file cache (without REDIS_URL) lives under DATA_DIR; the only place the service writes.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/src/api/main.js"]
