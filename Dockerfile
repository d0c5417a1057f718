# syntax=docker/dockerfile:1
# Node 22 LTS, pinned. One image for the API, the worker and the one-shot migrate job.
FROM node:22.20.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
# The workflow bundle is built here, once: workers load it through WORKFLOW_BUNDLE_PATH and
# start in seconds instead of bundling workflows/ at every start.
RUN npm run build \
  && node dist/scripts/build-workflow-bundle.js dist/workflow-bundle.js \
  && npm prune --omit=dev

FROM node:22.20.0-bookworm-slim
ENV NODE_ENV=production
ENV WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/dashboard ./dashboard
COPY --from=build /app/package.json ./package.json
USER node
EXPOSE 3000
CMD ["node", "dist/api/server.js"]
