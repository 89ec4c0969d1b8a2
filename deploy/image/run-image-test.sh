#!/usr/bin/env bash
# Builds Lanner's image and runs it as a cluster would (deploy/image/test): `lanner db
# migrate`, then `lanner server api` from the image against the development services
# (start them with `npm run services:up`, or export DATABASE_URL and KAFKA_BROKERS).
# Separate from `npm test`: a cold build (Debian root filesystem, npm ci inside the
# build) takes several minutes.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "${ROOT}"
tools/ci/install-buildah.sh
deploy/image/build.sh
exec node_modules/.bin/jest -c deploy/image/jest.int.config.js --runInBand
