# Seqflow service image (used by docker-compose.yml). The build stage compiles TypeScript to dist/;
# the runtime stage has production dependencies only and runs the compiled JavaScript as `node`.
# CI replays both stages in scratch folders (scripts/replay-dockerfile.ts): every COPY must find what
# it names, every RUN must pass, and the result must serve /api/v1/health. Keep RUN paths relative.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY console ./console
COPY packages ./packages
# `npm ci` runs `prepare`, which builds dist/: the service (tsc), the operator console page (Vite) and
# the client package (tsc -p packages/client), all with development dependencies here.
RUN npm ci
# An empty data folder, copied below owned by `node`: a volume mounted there starts out writable.
RUN mkdir -p seqflow-data

FROM node:24-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
COPY scripts ./scripts
RUN npm ci --omit=dev
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY lib ./lib
COPY examples ./examples
# The data folder (the master key file and the embedded PostgreSQL when DATABASE_URL is unset) is in
# the home of `node`, which owns it; mount a volume there to keep it.
COPY --from=build --chown=node:node /app/seqflow-data /home/node/seqflow
ENV SEQFLOW_DATA_DIR=/home/node/seqflow
# Listen on every interface of the container; the console and /metrics too, for the ports the
# compose file publishes on the host's loopback (or its own network).
ENV HOST=0.0.0.0 PORT=8080 SEQFLOW_CONSOLE_HOST=0.0.0.0 SEQFLOW_CONSOLE_PORT=8081 SEQFLOW_METRICS_HOST=0.0.0.0 SEQFLOW_METRICS_PORT=9464 SEQFLOW_HEALTH_HOST=0.0.0.0 SEQFLOW_HEALTH_PORT=8082
USER node
EXPOSE 8080 8081 8082 9464
# Healthy when the API's /api/v1/health (roles all and api, on PORT) or a worker's (on
# SEQFLOW_HEALTH_PORT: a worker has no public port) answers ok: one check for every role.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 CMD ["node", "-e", "const at = (port) => fetch('http://127.0.0.1:' + port + '/api/v1/health').then((r) => (r.ok ? r : Promise.reject(new Error(String(r.status))))); Promise.any([at(process.env.PORT || 8080), at(process.env.SEQFLOW_HEALTH_PORT || 8082)]).then(() => process.exit(0), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/seqflow.js"]
CMD ["serve", "--role", "all"]
