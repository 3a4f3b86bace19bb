#!/usr/bin/env bash
# Sourced by start.sh and test.sh: puts a supported Node first on PATH. The machine's own Node when its major
# is at least the supported minimum (.node-version's major), else the pinned version from the npm registry's
# `node` package, installed into .runtime/ in this folder (no global install, nothing downloaded from anywhere
# but the registry). NODE_VERSION=<version> asks for that exact version instead (scripts/test-matrix.sh).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pinned="${NODE_VERSION:-$(tr -d ' \n' < "$root/.node-version")}"
minimum="${pinned%%.*}"
current="$(node -p 'process.versions.node' 2>/dev/null || echo 0)"
if [ -z "${NODE_VERSION:-}" ] && [ "${current%%.*}" -ge "$minimum" ]; then
  return 0 2>/dev/null || exit 0
fi
runtime="$root/.runtime/node-$pinned"
if [ "$("$runtime/node_modules/node/bin/node" -p 'process.versions.node' 2>/dev/null)" != "$pinned" ]; then
  echo "ensure-node: Node $current is older than $minimum: installing Node $pinned from the npm registry into .runtime/" >&2
  mkdir -p "$runtime"
  npm install --prefix "$runtime" --no-save --no-audit --no-fund --loglevel=error "node@$pinned" >&2
fi
export PATH="$runtime/node_modules/node/bin:$PATH"
echo "ensure-node: using Node $(node -p 'process.versions.node') from .runtime/" >&2
