#!/usr/bin/env bash
# Builds OpenTofu from its Go module into the user's cache (once per version) and
# prints the binary's path. The Terraform provider's acceptance tests run this
# binary; a `terraform` found on the machine is never used.
# Cold: module download and build (~3 min); warm: the cached binary, instantly.
set -euo pipefail

TOFU_VERSION="1.12.6"
CACHE_DIR="${LANNER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lanner}"
BIN_DIR="${CACHE_DIR}/bin"
TOFU="${BIN_DIR}/tofu"
STAMP="${BIN_DIR}/.tofu.version"

if [[ -x "${TOFU}" && "$(cat "${STAMP}" 2>/dev/null)" == "${TOFU_VERSION}" ]]; then
  echo "${TOFU}"
  exit 0
fi

mkdir -p "${BIN_DIR}"
# One build at a time: a second caller (a test starting while CI's background build runs)
# waits for the first, then finds its binary.
exec 9>"${BIN_DIR}/.tofu.lock"
flock 9
if [[ -x "${TOFU}" && "$(cat "${STAMP}" 2>/dev/null)" == "${TOFU_VERSION}" ]]; then
  echo "${TOFU}"
  exit 0
fi
command -v go >/dev/null || { echo "install-tofu: Go is needed to build OpenTofu ${TOFU_VERSION}" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT

# `go install` refuses a module with replace directives: build from a copy of the module instead.
MODULE_DIR="$(cd "${WORK}" && go mod download -json "github.com/opentofu/opentofu@v${TOFU_VERSION}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
[[ -d "${MODULE_DIR}" ]] || { echo "install-tofu: go mod download gave no module folder for OpenTofu ${TOFU_VERSION}" >&2; exit 1; }
cp -R "${MODULE_DIR}" "${WORK}/opentofu"
chmod -R u+w "${WORK}/opentofu"
echo "install-tofu: building OpenTofu ${TOFU_VERSION} (a few minutes, once)" >&2
(cd "${WORK}/opentofu" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "${WORK}/tofu" ./cmd/tofu)
mv "${WORK}/tofu" "${TOFU}"
echo "${TOFU_VERSION}" > "${STAMP}"
echo "${TOFU}"
