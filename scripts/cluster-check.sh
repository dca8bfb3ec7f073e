#!/usr/bin/env bash
# The cluster of docker-compose.yml, built and run on this Docker host, takes a campaign to review
# while one render node is killed mid-render.
#
#   sudo bash scripts/cluster-check.sh          (KEEP=1 leaves the cluster up; log: $LOG)
#
# 1. Images, all built here from a local Debian 12 base (no registry needed; scripts/local-base-image.sh): the
#    product's (Dockerfile, BASE_IMAGE as build argument), PostgreSQL and Redis (docker/postgres, docker/redis).
# 2. `docker-compose up --scale render=2`: PostgreSQL, Redis, api, orchestrator, two render nodes.
# 3. An organization and key with the admin tool (in the orchestrator), the fixture site served on the orchestrator's
#    loopback (ALLOW_PRIVATE_NETWORK=true lets its capture load it), a campaign in English and Japanese.
# 4. When a render node has an editly process running, that container is killed (SIGKILL: no drain), and the
#    campaign must still reach review: its video is rendered again on the other node. The render attempts are printed.
#
# Needs root, a running Docker engine, docker-compose (Debian's) or the compose plugin, and debootstrap.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE_IMAGE=${BASE_IMAGE:-local/debian-minbase:bookworm}
ROOTFS=${ROOTFS:-/var/tmp/cv-fresh-rootfs}
LOG=${LOG:-/var/tmp/cluster-check.log}
PROJECT=${PROJECT:-cvcheck}
: >"$LOG"
say() { echo "[cluster-check] $(date +%T) $*" | tee -a "$LOG"; }

if docker compose version >/dev/null 2>&1; then compose=(docker compose -p "$PROJECT"); else compose=(docker-compose -p "$PROJECT"); fi
docker info >/dev/null 2>&1 || { echo "a running Docker engine is needed (apt-get install docker.io; dockerd &)" >&2; exit 2; }
# shellcheck source=scripts/local-base-image.sh
source scripts/local-base-image.sh
local_base_image "$BASE_IMAGE" "$ROOTFS" "$LOG"

export BASE_IMAGE POSTGRES_IMAGE=local/postgres:15 REDIS_IMAGE=local/redis:7 ALLOW_PRIVATE_NETWORK=true
SIGNING_KEY=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
export SIGNING_KEY

copied=()
cleanup() {
  for file in "${copied[@]}"; do rm -f "$file"; done
  if [ "${KEEP:-0}" != 1 ]; then "${compose[@]}" down -v --remove-orphans >>"$LOG" 2>&1 || true; fi
}
trap cleanup EXIT
for ca in $(extra_ca_files); do
  cp "$ca" docker/extra-ca/ && copied+=("docker/extra-ca/$(basename "$ca")")
done

started=$(date +%s)
say "building local/postgres:15 and local/redis:7 from $BASE_IMAGE"
docker build -q -t "$POSTGRES_IMAGE" --build-arg BASE_IMAGE docker/postgres >>"$LOG" 2>&1
docker build -q -t "$REDIS_IMAGE" --build-arg BASE_IMAGE docker/redis >>"$LOG" 2>&1
say "building the product's image from $BASE_IMAGE (Dockerfile; log $LOG)"
"${compose[@]}" build >>"$LOG" 2>&1 || { tail -40 "$LOG"; exit 1; }
say "image built in $(($(date +%s) - started)) s: $(docker image inspect campaign-video-api --format '{{.Size}}' | awk '{ printf "%.0f MB", $1 / 1e6 }')"

say "docker-compose up --scale render=2"
"${compose[@]}" up -d --scale render=2 >>"$LOG" 2>&1 || { tail -40 "$LOG"; exit 1; }
for _ in $(seq 1 180); do
  curl -fsS http://127.0.0.1:3000/readyz >/dev/null 2>&1 && break
  sleep 2
done
curl -fsS http://127.0.0.1:3000/readyz | tee -a "$LOG"
echo
"${compose[@]}" ps | tee -a "$LOG"

orchestrator=$("${compose[@]}" ps -q orchestrator)
admin() { docker exec "$orchestrator" npm run -s admin -- "$@"; }
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
org=$(admin org create --name 'Cluster Check' --plan business | json "['org_id']")
admin user add --org "$org" --email ops@check.example --role owner >/dev/null
key=$(admin key create --org "$org" --by ops@check.example --name check | json "['key']")
say "organization $org, key ${key:0:12}…"

docker exec -d "$orchestrator" sh -c "npx tsx -e \"import('./test/fixtures/site/server.ts').then(async (m) => { const s = await m.startFixtureSite(); require('node:fs').writeFileSync('/tmp/site-origin', s.origin); setInterval(() => {}, 1 << 30); })\""
for _ in $(seq 1 60); do docker exec "$orchestrator" test -s /tmp/site-origin && break; sleep 1; done
origin=$(docker exec "$orchestrator" cat /tmp/site-origin)
say "fixture site on the orchestrator's loopback: $origin"

created=$(curl -fsS -X POST http://127.0.0.1:3000/api/v1/campaigns -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
  -d "{\"url\":\"$origin/\",\"languages\":[\"en\",\"ja\"],\"platforms\":[\"tiktok\"]}")
campaign=$(echo "$created" | json "['campaign_id']")
say "campaign $campaign created"
status() { curl -fsS "http://127.0.0.1:3000/api/v1/campaigns/$campaign" -H "Authorization: Bearer $key" | json "['status']"; }

killed=''
for _ in $(seq 1 600); do
  state=$(status)
  if [ -z "$killed" ] && [ "$state" = rendering ]; then
    for container in $("${compose[@]}" ps -q render); do
      if docker exec "$container" pgrep -f editly-child >/dev/null 2>&1; then
        killed=$(docker inspect --format '{{.Name}}' "$container" | tr -d /)
        say "killing render node $killed mid-render (docker kill: SIGKILL, no drain)"
        docker kill "$container" >>"$LOG"
        break
      fi
    done
  fi
  case "$state" in review | failed) break ;; esac
  sleep 1
done
final=$(curl -fsS "http://127.0.0.1:3000/api/v1/campaigns/$campaign" -H "Authorization: Bearer $key")
say "campaign $campaign: $(echo "$final" | json "['status']") after $(($(date +%s) - started)) s in all; videos: $(echo "$final" | python3 -c "import json,sys; print(', '.join(v['language']+' '+v['status'] for v in json.load(sys.stdin)['videos']))")"
postgres=$("${compose[@]}" ps -q postgres)
docker exec "$postgres" psql -U postgres -d campaigns -c \
  "SELECT v.language, a.node_id, a.outcome, round(a.wall_ms / 1000.0, 1) AS seconds FROM render_attempts a JOIN videos v ON v.id = a.video_id WHERE a.campaign_id = '$campaign' ORDER BY a.started_at" |
  tee -a "$LOG"
[ -n "$killed" ] || { say "FAILED: no render node was seen rendering, none was killed"; exit 1; }
[ "$(echo "$final" | json "['status']")" = review ] || { say "FAILED: the campaign did not reach review"; exit 1; }
say "passed: the campaign reached review although $killed was killed mid-render"
