#!/usr/bin/env bash
# The README's two commands on a Debian 12 root filesystem that has neither node nor npm.
# Makes that root with debootstrap (minbase bookworm, from Debian's mirror; kept in $ROOTFS and imported once as the
# image $IMAGE), then runs, in a container of it with its own network (so it installs its own PostgreSQL and
# Redis), a clean copy of the committed tree (git archive HEAD): `bash scripts/demo.sh` with DEMO_KEEP_RUNNING=0 (the demo
# ends after its campaign instead of keeping the dashboard up), then `bash scripts/test.sh`. Too slow for every CI
# run (about 35 minutes on 2 cores); run it before a release and keep the last lines of its log.
# The first command's own time is what a newcomer waits for (at most 5 minutes, npm ci at most 2): the
# bootstrap's timed steps ([bootstrap] … done in N s) are kept in the log, and FRESH_CHECK_TESTS=0 stops after it.
#
#   sudo bash scripts/fresh-machine-check.sh            (log: $LOG, default /var/tmp/fresh-machine-check.log)
#   sudo FRESH_CHECK_TESTS=0 bash scripts/fresh-machine-check.sh   (the demo only)
#
# Needs root, debootstrap and a running Docker engine (Debian's docker.io; `dockerd &` where no init runs it).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOTFS=${ROOTFS:-/var/tmp/cv-fresh-rootfs}
IMAGE=${IMAGE:-local/debian-minbase:bookworm}
LOG=${LOG:-/var/tmp/fresh-machine-check.log}
WORK=$(mktemp -d /var/tmp/fresh-machine-check.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

say() { echo "[fresh-machine-check] $*" | tee -a "$LOG"; }
: >"$LOG"
docker info >/dev/null 2>&1 || { echo "a running Docker engine is needed (apt-get install docker.io; dockerd &)" >&2; exit 2; }

# shellcheck source=scripts/local-base-image.sh
source scripts/local-base-image.sh
local_base_image "$IMAGE" "$ROOTFS" "$LOG"
say "the image has node: $(docker run --rm "$IMAGE" sh -c 'command -v node || echo no'), npm: $(docker run --rm "$IMAGE" sh -c 'command -v npm || echo no')"

git archive --format=tar HEAD | tar -x -C "$WORK"
say "tree: $(git rev-parse --short HEAD), in a container of $IMAGE"
started=$(date +%s)
set +e
# Where this machine's TLS is re-signed by a CA of its own (a sandbox's egress proxy: /usr/local/share/ca-certificates),
# the container trusts the host's bundle for npm and Node; a machine on the open internet needs none of this.
trust=()
if [ -n "$(extra_ca_files)" ]; then
  trust=(-v /etc/ssl/certs/ca-certificates.crt:/etc/host-ca.crt:ro -e NODE_EXTRA_CA_CERTS=/etc/host-ca.crt -e npm_config_cafile=/etc/host-ca.crt)
  say "the host's CA bundle is trusted in the container (this machine's egress re-signs TLS)"
fi
# IPv6 on, loopback included, as on a machine (Docker turns it off in containers by default).
tests=${FRESH_CHECK_TESTS:-1}
docker run --rm --shm-size=1g --sysctl net.ipv6.conf.all.disable_ipv6=0 --sysctl net.ipv6.conf.lo.disable_ipv6=0 -v "$WORK:/app" -w /app -e DEMO_KEEP_RUNNING=0 -e FRESH_CHECK_TESTS="$tests" "${trust[@]}" "$IMAGE" bash -c '
  set -o pipefail
  t0=$(date +%s)
  bash scripts/demo.sh >/tmp/demo.log 2>&1; demo=$?
  grep -E "^\[bootstrap\] .*(done in|installed in|ready in)" /tmp/demo.log
  tail -n 30 /tmp/demo.log
  echo "[fresh-machine-check] demo.sh exit $demo after $(( $(date +%s) - t0 )) s"
  [ "$FRESH_CHECK_TESTS" = 0 ] && exit "$demo"
  t1=$(date +%s)
  bash scripts/test.sh 2>&1 | tail -n 60; tests=$?
  echo "[fresh-machine-check] test.sh exit $tests after $(( $(date +%s) - t1 )) s"
  [ "$demo" = 0 ] && [ "$tests" = 0 ]
' 2>&1 | tee -a "$LOG"
status=${PIPESTATUS[0]}
set -e
say "$([ "$tests" = 0 ] && echo "the demo" || echo "both commands"): $([ "$status" = 0 ] && echo passed || echo "FAILED (exit $status)") in $(( $(date +%s) - started )) s"
exit "$status"
