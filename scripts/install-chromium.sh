#!/usr/bin/env bash
# Installs Debian's headless-capable Chromium for the console's end-to-end test (test/console/e2e.test.ts),
# only when it is missing. Idempotent and quiet; needs root (CI and the dev machines run as root).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
/usr/bin/chromium --version
