#!/usr/bin/env bash
# Fresh machine -> running service: browser, a supported Node, dependencies exactly as locked, build, start
# (PORT/HOST override 127.0.0.1:3002).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-chromium.sh
source scripts/ensure-node.sh
npm ci --no-audit --no-fund
npm run build
exec npm start
