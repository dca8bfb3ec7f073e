#!/usr/bin/env bash
# Quick start, command 1: installs what is missing (Debian packages, Node 22, npm ci), then runs the demo.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/bootstrap.sh
source scripts/bootstrap.sh
exec npx --no-install tsx scripts/demo.ts
