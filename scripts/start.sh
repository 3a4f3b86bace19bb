#!/usr/bin/env bash
# Fresh machine -> running service: browser, dependencies, build, start (PORT/HOST override 127.0.0.1:3002).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-chromium.sh
# npm ci installs exactly the lock file. It refuses a lock that lacks platform packages this registry does not
# serve (bullmq's optional msgpackr-extract builds for macOS and Windows); npm install then takes the same
# locked versions and skips what it cannot fetch.
npm ci --no-audit --no-fund || npm install --no-audit --no-fund
npm run build
exec npm start
