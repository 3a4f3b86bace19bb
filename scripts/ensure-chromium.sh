#!/usr/bin/env bash
# Installs Debian's chromium for the browser engine, and iproute2 (`ip`) with which browser sessions and code runs
# get network namespaces of their own, only when they are missing. Never downloads a browser of its own. A
# machine where apt cannot install them still gets a working service (http engine only; sessions sharing one
# browser).
set -uo pipefail
missing=()
if ! { [ -n "${CHROMIUM_PATH:-}" ] && [ -x "${CHROMIUM_PATH}" ]; } && ! [ -x /usr/bin/chromium ] &&
  ! command -v chromium >/dev/null 2>&1; then
  missing+=(chromium)
fi
if ! [ -x /usr/sbin/ip ] && ! [ -x /sbin/ip ] && ! [ -x /usr/bin/ip ] && ! [ -x /bin/ip ]; then missing+=(iproute2); fi
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
echo "ensure-chromium: installing Debian's ${missing[*]} with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >&2; then
  echo "ensure-chromium: WARNING: could not install ${missing[*]}; the browser engine or sessions' isolation will be unavailable" >&2
fi
exit 0
