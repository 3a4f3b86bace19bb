#!/usr/bin/env bash
# The whole test suite on the other supported Node major (CI runs it on the pinned one, .node-version):
# installs that Node from the npm registry into .runtime/ (scripts/ensure-node.sh), reinstalls the
# dependencies with it, and runs `npm test`. NODE_VERSION overrides the version tried.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_VERSION="${NODE_VERSION:-26.10.0}"
bash scripts/ensure-chromium.sh
bash scripts/ensure-redis.sh
source scripts/ensure-node.sh
npm ci --no-audit --no-fund
npm test
