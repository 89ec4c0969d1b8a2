#!/usr/bin/env bash
# Installs what the Helm chart's tests (deploy/helm) need, into ~/.cache/lanner:
#   bin/helm, bin/kubeconform   built from their Go modules (no other source of them here)
#   k8s-schemas/v<version>/     Kubernetes JSON schemas (strict: unknown fields fail) of the
#                               oldest and newest Kubernetes the chart supports, taken from
#                               the PyPI package kubernetes-validate
# What is already there is kept, so a warm run takes a second.
set -euo pipefail

HELM_VERSION=v3.22.0
KUBECONFORM_VERSION=v0.8.0
KUBERNETES_VALIDATE_VERSION=1.37.0
SCHEMA_VERSIONS=(1.29.0 1.37.0)

CACHE="${LANNER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lanner}"
BIN="${CACHE}/bin"
SCHEMAS="${CACHE}/k8s-schemas"
mkdir -p "${BIN}" "${SCHEMAS}"
# One install at a time: a second caller (the chart tests starting while CI's background
# install runs) waits for the first, then finds everything cached.
exec 9>"${BIN}/.helm-tools.lock"
flock 9

# `go install` builds carry no version of their own: a marker file beside each binary
# records which version it was built from.
install_go_tool() { # name, module@version
  local name="$1" module="$2"
  if [[ -x "${BIN}/${name}" && "$(cat "${BIN}/.${name}.version" 2>/dev/null)" == "${module}" ]]; then
    echo "${name}: ${module} cached"
    return
  fi
  echo "${name}: building ${module}"
  GOBIN="${BIN}" GOFLAGS=-mod=mod go install "${module}"
  echo "${module}" >"${BIN}/.${name}.version"
}

install_go_tool helm "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}"
install_go_tool kubeconform "github.com/yannh/kubeconform/cmd/kubeconform@${KUBECONFORM_VERSION}"

missing=()
for version in "${SCHEMA_VERSIONS[@]}"; do
  [[ -f "${SCHEMAS}/v${version}/.complete" ]] || missing+=("${version}")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "Kubernetes schemas ${SCHEMA_VERSIONS[*]}: cached"
  exit 0
fi

echo "Kubernetes schemas ${missing[*]}: from kubernetes-validate ${KUBERNETES_VALIDATE_VERSION}"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
python3 -m pip download --quiet --no-deps --disable-pip-version-check \
  "kubernetes-validate==${KUBERNETES_VALIDATE_VERSION}" -d "${work}"
for version in "${missing[@]}"; do
  rm -rf "${SCHEMAS}/v${version}"
  # The strict flavour sets additionalProperties: false, so a misspelt field fails.
  python3 -m zipfile -e "${work}"/kubernetes_validate-*.whl "${work}/wheel" >/dev/null
  mv "${work}/wheel/kubernetes_validate/kubernetes-json-schema/v${version}-local-strict" "${SCHEMAS}/v${version}"
  rm -rf "${work}/wheel"
  # The schemas name themselves https://kubernetes.io/api/... and point at each other with
  # absolute paths (/api/_definitions.json): made relative, so kubeconform resolves them
  # from the folder instead of the network.
  node - "${SCHEMAS}/v${version}" <<'NODE'
const fs = require('node:fs');
const path = require('node:path');
const folder = process.argv[2];
for (const name of fs.readdirSync(folder)) {
  if (!name.endsWith('.json')) continue;
  const file = path.join(folder, name);
  const schema = JSON.parse(fs.readFileSync(file, 'utf8'));
  delete schema.$id;
  const text = JSON.stringify(schema).replaceAll('"/api/_definitions.json#', '"_definitions.json#');
  fs.writeFileSync(file, text);
}
NODE
  touch "${SCHEMAS}/v${version}/.complete"
done
