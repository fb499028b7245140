# syntax=docker/dockerfile:1
# One image for all three Slipway processes; the chart starts each with its own command:
#   node operator/main.ts | node webhook-gateway/main.ts | node status-api/main.ts
# Node 24 runs the TypeScript sources directly (type stripping), so there is no build step.
# Keep NODE_VERSION in step with the `node` devDependency in package.json.
ARG NODE_VERSION=24.21.0

# Production dependencies only. `--omit=dev` leaves out the `node` devDependency (the npm
# scripts' Node runtime): the image uses the base image's node. No runtime dependency has
# an install script, so scripts are off.
FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && npm cache clean --force

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
# npm, npx, corepack and yarn are not needed at run time: drop them (size, CVE surface).
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /opt/yarn-* \
      /usr/local/bin/yarn /usr/local/bin/yarnpkg \
  && groupadd --gid 10001 slipway \
  && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
       --shell /usr/sbin/nologin slipway
ENV NODE_ENV=production
WORKDIR /app
# Sources stay owned by root: the processes cannot modify their own code.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY crds ./crds
COPY rules ./rules
COPY lib ./lib
COPY providers ./providers
COPY operator ./operator
COPY webhook-gateway ./webhook-gateway
COPY status-api ./status-api
USER 10001:10001
EXPOSE 8080 8081
LABEL org.opencontainers.image.title="slipway" \
      org.opencontainers.image.description="Slipway operator, webhook gateway and status API" \
      org.opencontainers.image.licenses="Apache-2.0"
CMD ["node", "--eval", "console.log('Slipway image. Run one of:\\n  node operator/main.ts\\n  node webhook-gateway/main.ts\\n  node status-api/main.ts\\nSee docs/helm.md for the environment each one reads.')"]
