#!/usr/bin/env bash
# Type-check, lint (typescript-eslint), check formatting (prettier), then run the Jest suite on Node 22,
# with PostgreSQL and Redis up.
#   bash scripts/test.sh [jest args...]     e.g. bash scripts/test.sh test/smoke
# Env for the tests (defaults; set them to override):
#   TEST_DATABASE_URL  postgres://postgres@127.0.0.1:5432/test   (trust auth on 127.0.0.1)
#   TEST_REDIS_URL     redis://127.0.0.1:6379
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

t0=$SECONDS
# shellcheck source=scripts/bootstrap.sh
source scripts/bootstrap.sh --services

export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"

t=$SECONDS
echo "[test] tsc --noEmit ..." >&2
npx --no-install tsc --noEmit
echo "[test] tsc ok ($((SECONDS - t)) s)" >&2

# The whole run (CI, the README's command) also lints and checks formatting; a run of chosen tests skips both.
if [ $# -eq 0 ]; then
  t=$SECONDS
  echo "[test] eslint (type-checked rules) and prettier --check ..." >&2
  npx --no-install eslint .
  npx --no-install prettier --check . >/dev/null || { npx --no-install prettier --list-different .; echo "[test] not formatted: run npm run format" >&2; exit 1; }
  echo "[test] lint and format ok ($((SECONDS - t)) s)" >&2
fi

t=$SECONDS
echo "[test] jest --ci $* ..." >&2
rc=0
NODE_OPTIONS="--experimental-vm-modules${NODE_OPTIONS:+ $NODE_OPTIONS}" npx --no-install jest --ci "$@" || rc=$?
echo "[test] jest exit $rc ($((SECONDS - t)) s); total $((SECONDS - t0)) s" >&2
exit "$rc"
