# Seqflow service image (used by docker-compose.yml). The build stage compiles TypeScript to dist/;
# the runtime stage has production dependencies only and runs the compiled JavaScript.
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
USER node
EXPOSE 8080
ENTRYPOINT ["node", "bin/seqflow.js"]
CMD ["serve", "--role", "all"]
