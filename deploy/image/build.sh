#!/usr/bin/env bash
# Builds Lanner's image from the Containerfile with buildah (no Docker engine needed):
# tagged localhost/lanner:<version of package.json>, plus `latest`. The base image is
# assembled locally first (build-base.sh). Usage: deploy/image/build.sh [image name]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "${ROOT}"
VERSION="$(node -p "require('./package.json').version")"
IMAGE="${1:-localhost/lanner:${VERSION}}"
NODE_VERSION="$(node -p process.versions.node)"
REVISION="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
SOURCE="$(git config --get remote.origin.url 2>/dev/null || echo unknown)"

# npm in the build stage uses this machine's npm cache (downloads once) and, when this
# machine trusts an extra CA for the registry (a TLS-intercepting proxy), that CA too.
build_options=(--volume "$(npm config get cache):/root/.npm")
ca_file="${NODE_EXTRA_CA_CERTS:-$(npm config get cafile 2>/dev/null || true)}"
if [[ -n "${ca_file}" && "${ca_file}" != "null" && -f "${ca_file}" ]]; then
  build_options+=(--volume "${ca_file}:/run/lanner-build-ca.crt:ro"
    --build-arg NODE_EXTRA_CA_CERTS=/run/lanner-build-ca.crt --build-arg npm_config_cafile=/run/lanner-build-ca.crt)
fi

"${ROOT}/deploy/image/build-base.sh"
# The web UI's bundle goes into the image as built here: its libraries are development
# dependencies, which the image's production install leaves out. A bundle newer than the
# UI's sources is used as it is (npm test builds it once before this runs beside the browser
# tests); otherwise it is built here, and a failed build fails the image.
node tools/scripts/ensure-ui-built.js --strict
buildah --storage-driver vfs bud --isolation chroot --network host --squash "${build_options[@]}" \
  --build-arg "BASE_IMAGE=localhost/lanner-node-base:${NODE_VERSION}" \
  --build-arg "VERSION=${VERSION}" --build-arg "REVISION=${REVISION}" --build-arg "SOURCE=${SOURCE}" \
  --tag "${IMAGE}" -f Containerfile .
echo "${IMAGE}: $(buildah --storage-driver vfs images --format '{{.Size}}' "${IMAGE}")"
