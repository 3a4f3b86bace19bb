#!/usr/bin/env bash
# Installs Debian's redis-server for the distributed job engine's tests (REDIS_URL), only when it is missing.
# The embedded default needs no Redis; a machine where apt cannot install it skips those tests loudly.
set -uo pipefail
if command -v redis-server >/dev/null 2>&1; then exit 0; fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
echo "ensure-redis: installing Debian's redis-server with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends redis-server; } >&2; then
  echo "ensure-redis: WARNING: could not install redis-server; the Redis tests will be skipped" >&2
fi
# Debian starts a system instance on 6379; the tests start their own on free ports and never use it.
exit 0
