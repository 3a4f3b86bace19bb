#!/usr/bin/env bash
# Fresh machine -> whole test suite: browser, Redis, dependencies, then lint, typecheck and every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-chromium.sh
bash scripts/ensure-redis.sh
# npm ci installs exactly the lock file. It refuses a lock that lacks platform packages this registry does not
# serve (bullmq's optional msgpackr-extract builds for macOS and Windows); npm install then takes the same
# locked versions and skips what it cannot fetch.
npm ci --no-audit --no-fund || npm install --no-audit --no-fund
npm test
