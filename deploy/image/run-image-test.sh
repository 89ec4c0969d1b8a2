#!/usr/bin/env bash
# Builds Lanner's image and runs it as a cluster would (deploy/image/test): `lanner db
# migrate`, then `lanner server api` from the image against the development services
# (start them with `npm run services:up`, or export DATABASE_URL and KAFKA_BROKERS).
# A step of `npm test` (tools/scripts/test.js, beside the integration tests): a cold build
# (Debian root filesystem, npm ci inside the build, the UI bundle) took 3 min 35 s on a
# shared 2-vCPU machine; with the base image kept in buildah's storage, less.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "${ROOT}"
tools/ci/install-buildah.sh
deploy/image/build.sh
exec node_modules/.bin/jest -c deploy/image/jest.int.config.js --runInBand
