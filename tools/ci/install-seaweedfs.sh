#!/usr/bin/env bash
# Builds SeaweedFS's `weed` (Apache-2.0) from its Go module into the user's cache, once per
# version, and prints the binary's path. The dev services run `weed server -s3` as the
# S3-compatible store that internal storage's S3 adapter is tested against.
# Cold: module download and build (5 to 12 min on two busy cores); warm: instantly.
set -euo pipefail

# The Go module proxy serves SeaweedFS as a pseudo-version (its tags are not Go-style).
SEAWEEDFS_VERSION="v0.0.0-20261109003541-7506e5f91cd6"
CACHE_DIR="${LANNER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lanner}"
BIN_DIR="${CACHE_DIR}/bin"
WEED="${BIN_DIR}/weed"
STAMP="${BIN_DIR}/.weed.version"

if [[ -x "${WEED}" && "$(cat "${STAMP}" 2>/dev/null)" == "${SEAWEEDFS_VERSION}" ]]; then
  echo "${WEED}"
  exit 0
fi

mkdir -p "${BIN_DIR}"
# One build at a time: a second caller (the dev services starting while CI's background
# build runs) waits for the first, then finds its binary.
exec 9>"${BIN_DIR}/.weed.lock"
flock 9
if [[ -x "${WEED}" && "$(cat "${STAMP}" 2>/dev/null)" == "${SEAWEEDFS_VERSION}" ]]; then
  echo "${WEED}"
  exit 0
fi
command -v go >/dev/null || { echo "install-seaweedfs: Go is needed to build SeaweedFS ${SEAWEEDFS_VERSION}" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT

# The module has replace directives, so `go install` refuses it: build from a writable copy.
MODULE_DIR="$(cd "${WORK}" && GOFLAGS=-mod=mod go mod download -json "github.com/seaweedfs/seaweedfs@${SEAWEEDFS_VERSION}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
[[ -d "${MODULE_DIR}" ]] || { echo "install-seaweedfs: go mod download gave no module folder for SeaweedFS ${SEAWEEDFS_VERSION}" >&2; exit 1; }
cp -R "${MODULE_DIR}" "${WORK}/seaweedfs"
chmod -R u+w "${WORK}/seaweedfs"
echo "install-seaweedfs: building SeaweedFS ${SEAWEEDFS_VERSION} (5 to 12 minutes, once)" >&2
(cd "${WORK}/seaweedfs" && GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "${WORK}/weed" ./weed)
mv "${WORK}/weed" "${WEED}"
echo "${SEAWEEDFS_VERSION}" > "${STAMP}"
echo "${WEED}"
