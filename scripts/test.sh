#!/usr/bin/env bash
# Fresh machine -> whole test suite: browser, Redis, a supported Node, dependencies exactly as locked, then
# lint, typecheck, the cycle check and every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-chromium.sh
bash scripts/ensure-redis.sh
source scripts/ensure-node.sh
npm ci --no-audit --no-fund
npm test
