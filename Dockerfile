# Seqflow service image (used by docker-compose.yml).
FROM node:24-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY bin ./bin
COPY src ./src
COPY examples ./examples
COPY tsconfig.json ./
USER node
EXPOSE 8080
ENTRYPOINT ["node", "bin/seqflow.js"]
CMD ["serve", "--role", "all"]
