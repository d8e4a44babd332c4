# Legwork server image: HTTP and the /client WebSocket on one port. Node.js 24 LTS (package.json engines).
FROM node:24-bookworm-slim AS build
WORKDIR /app
# Installs do not phone home (design.md section 20): @scarf/scarf, under @nestjs/swagger, would post
# install analytics. package.json denies its postinstall (allowScripts) and opts out (scarfSettings);
# this opts out once more for any install in the image.
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
# The workspaces' manifests first, so the install layer is cached until a dependency changes;
# @legwork/protocol is linked into node_modules and built by `npm run build` before the server.
COPY packages/protocol/package.json ./packages/protocol/
COPY sdk/package.json ./sdk/
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY packages/protocol ./packages/protocol
COPY src ./src
COPY migrations ./migrations
COPY console ./console
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
# Production (docs/operations.md): start refuses it without DATABASE_URL and REDIS_URL, and, on
# 0.0.0.0, without METRICS_TOKEN. DATA_DIR serves only a demo run with NODE_ENV=development.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# node_modules/@legwork/protocol is a link to it.
COPY --from=build /app/packages/protocol/package.json ./packages/protocol/
COPY --from=build /app/packages/protocol/dist ./packages/protocol/dist
COPY package.json ./
RUN mkdir -p /data && chown node:node /data && chmod 700 /data
USER node
EXPOSE 3000
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "dist/src/main.js"]
