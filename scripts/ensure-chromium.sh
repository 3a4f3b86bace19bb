#!/usr/bin/env bash
# Installs Debian's chromium for the browser engine, only when it is missing. Never downloads a browser
# of its own. A machine where apt cannot install it still gets a working service (http engine only).
set -uo pipefail
if [ -n "${CHROMIUM_PATH:-}" ] && [ -x "${CHROMIUM_PATH}" ]; then exit 0; fi
if [ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1; then exit 0; fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
echo "ensure-chromium: installing Debian's chromium with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends chromium; } >&2; then
  echo "ensure-chromium: WARNING: could not install chromium; the browser engine will be unavailable" >&2
fi
exit 0
