#!/usr/bin/env bash
# Assembles the base image the Containerfile builds FROM, locally, as no image registry is
# reachable: a minimal Debian root filesystem (mmdebstrap, from Debian's own mirror) plus
# this machine's Node.js, committed to buildah's local storage as
# localhost/lanner-node-base:<node version>. buildah resolves FROM against local images
# first. Kept when already there; the root filesystem is cached under ~/.cache/lanner.
set -euo pipefail

CACHE="${LANNER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lanner}/image"
SUITE=bookworm
MIRROR="${LANNER_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
NODE_VERSION="$(node -p process.versions.node)"
BASE_IMAGE="localhost/lanner-node-base:${NODE_VERSION}"
ROOTFS="${CACHE}/debian-${SUITE}-node-base.tar"
BUILDAH=(buildah --storage-driver vfs)

if "${BUILDAH[@]}" inspect --type image "${BASE_IMAGE}" >/dev/null 2>&1; then
  echo "${BASE_IMAGE}: present"
  exit 0
fi

mkdir -p "${CACHE}"
if [[ ! -s "${ROOTFS}" ]]; then
  echo "Debian ${SUITE} root filesystem: mmdebstrap"
  # essential: a shell and coreutils (the build stage runs npm) and no package manager;
  # libstdc++ for Node; tini reaps children and forwards signals to Node. No
  # ca-certificates: Node carries its own root certificates. Docs, manuals, locales and
  # iconv modules are left out.
  mmdebstrap --quiet --variant=essential --include=tini,libstdc++6 \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/lib/x86_64-linux-gnu/gconv/*' \
    --format=tar "${SUITE}" "${ROOTFS}.partial" "${MIRROR}"
  mv "${ROOTFS}.partial" "${ROOTFS}"
fi

echo "${BASE_IMAGE}: Debian ${SUITE} + Node.js ${NODE_VERSION} ($(command -v node))"
node_bin="$(readlink -f "$(command -v node)")"
npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
container="$("${BUILDAH[@]}" from scratch)"
trap '"${BUILDAH[@]}" rm "${container}" >/dev/null 2>&1 || true' EXIT
"${BUILDAH[@]}" add "${container}" "${ROOTFS}" /
"${BUILDAH[@]}" copy "${container}" "${node_bin}" /usr/local/bin/node
# npm is for the Containerfile's build stage; the final image deletes it.
"${BUILDAH[@]}" copy "${container}" "${npm_dir}" /usr/local/lib/node_modules/npm
"${BUILDAH[@]}" run --isolation chroot "${container}" -- ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm
# Fails here, not in the Containerfile, when the root filesystem lacks a library of Node's.
"${BUILDAH[@]}" run --isolation chroot "${container}" -- node --version
"${BUILDAH[@]}" config --env PATH=/usr/local/bin:/usr/bin:/bin --env NODE_VERSION="${NODE_VERSION}" \
  --label org.opencontainers.image.title=lanner-node-base "${container}"
"${BUILDAH[@]}" commit --quiet "${container}" "${BASE_IMAGE}" >/dev/null
echo "${BASE_IMAGE}: committed"
