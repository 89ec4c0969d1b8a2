#!/usr/bin/env bash
# Installs Debian's headless Chromium for the UI browser tests (playwright-core drives it;
# no browser is ever downloaded by a test tool). Does nothing when it is already there.
# Needs root (CI runs as root); a developer without root installs the package by hand.
set -euo pipefail

SHELL_BINARY=/usr/lib/chromium/chromium-headless-shell
if [[ -x "${SHELL_BINARY}" ]]; then
  echo "chromium-headless-shell: already installed (${SHELL_BINARY})"
  exit 0
fi
if [[ "$(id -u)" != "0" ]]; then
  echo "chromium-headless-shell is missing: install it as root with 'apt-get install -y chromium-headless-shell'" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends chromium-headless-shell
echo "chromium-headless-shell: installed (${SHELL_BINARY})"
