#!/usr/bin/env bash
# Fresh machine -> whole test suite: browser, Redis, dependencies, then lint, typecheck and every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-chromium.sh
bash scripts/ensure-redis.sh
npm ci --no-audit --no-fund
npm test
