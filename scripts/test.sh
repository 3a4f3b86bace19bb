#!/usr/bin/env bash
# Fresh machine -> whole test suite: browser, dependencies, then lint, typecheck and every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-chromium.sh
npm ci --no-audit --no-fund
npm test
