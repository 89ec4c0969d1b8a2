#!/usr/bin/env bash
# Installs buildah (builds and runs the image without a Docker engine) and mmdebstrap
# (makes the base image's Debian root filesystem) from Debian's packages, unless present.
set -euo pipefail

missing=()
command -v buildah >/dev/null || missing+=(buildah)
command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "buildah, mmdebstrap: installed"
  exit 0
fi
sudo=()
[[ "$(id -u)" == "0" ]] || sudo=(sudo)
echo "installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
