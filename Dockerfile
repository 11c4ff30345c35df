# Switchyard worker image: build the TypeScript in one stage, run the compiled worker (or `switchyard serve`, the
# gateway) on a slim Node 20.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production \
    SWITCHYARD_CONFIG=/app/switchyard.config.json \
    SWITCHYARD_METRICS_HOST=0.0.0.0 \
    SWITCHYARD_METRICS_PORT=9464
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
# Mount points of the compose stack's payload store and gateway keys volumes: a fresh named volume takes its
# owner from the image's folder, so the `node` user can write them.
RUN mkdir -p /var/lib/switchyard/payloads /var/lib/switchyard/keys && chown -R node:node /var/lib/switchyard
USER node
# Prometheus metrics (temporal_* and switchyard_*) at :9464/metrics.
EXPOSE 9464
# `docker compose exec worker node bin/switchyard.js call "Hello"` uses the same image as a CLI.
CMD ["node", "dist/src/worker.js"]
