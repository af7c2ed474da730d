# Sealpost container image. Two stages: the builder compiles the SQLite driver (better-sqlite3), installs the
# production dependencies and builds the command (`npm ci` runs `prepare`, which bundles src/ into dist/, so the
# sources are copied in first); the runtime stage copies the result and runs as an unprivileged user.

FROM node:22-bookworm-slim AS build
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json LICENSE tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY docs ./docs
RUN find src -name '*.test.ts' -delete -o -name '*.test-support.ts' -delete
RUN npm ci --omit=dev --build-from-source \
 && npm cache clean --force

FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    SEALPOST_DATA_DIR=/var/lib/sealpost \
    SEALPOST_HTTP_PORT=8080
RUN groupadd --system --gid 10001 sealpost \
 && useradd --system --uid 10001 --gid sealpost --home-dir /var/lib/sealpost --shell /usr/sbin/nologin sealpost \
 && mkdir -p /var/lib/sealpost \
 && chown sealpost:sealpost /var/lib/sealpost \
 && chmod 0700 /var/lib/sealpost
WORKDIR /app
COPY --from=build /app /app
# The commit the image was built from, printed at start: docker build --build-arg BUILD_COMMIT=$(git rev-parse --short HEAD) .
ARG BUILD_COMMIT=unknown
RUN echo "$BUILD_COMMIT" > /app/COMMIT
USER sealpost
VOLUME ["/var/lib/sealpost"]
EXPOSE 8080 25 465 587
# Probes the roles in SEALPOST_ROLES as each serves: the api's /healthz, the SMTP greeting, the worker's heartbeat.
# A container started with `start --roles worker` sets SEALPOST_ROLES=worker too (or uses it instead of --roles).
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
  CMD ["node", "bin/sealpost.js", "health"]
ENTRYPOINT ["node", "bin/sealpost.js"]
CMD ["start"]
