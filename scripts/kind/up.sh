#!/bin/sh
# For machines with a Docker engine: creates a kind cluster, builds the Slipway image, loads it
# into the cluster and installs the chart. Our build machines have no Docker engine, so this
# script is not run in CI; `npm start` (local control plane with kwok) is the path there.
#   scripts/kind/up.sh                 # cluster "slipway", image slipway:dev
#   SLIPWAY_KIND_CLUSTER=demo SLIPWAY_IMAGE_TAG=test scripts/kind/up.sh --set operator.registry=...
# Extra arguments go to `helm upgrade --install`. Needs docker, kind and kubectl on PATH;
# helm is used from PATH, or built once by scripts/helm/build.sh.
set -eu

CLUSTER="${SLIPWAY_KIND_CLUSTER:-slipway}"
IMAGE_REPOSITORY="${SLIPWAY_IMAGE_REPOSITORY:-slipway}"
IMAGE_TAG="${SLIPWAY_IMAGE_TAG:-dev}"
NAMESPACE="${SLIPWAY_NAMESPACE:-slipway-system}"
RELEASE="${SLIPWAY_RELEASE:-slipway}"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

log() { printf '[kind:up] %s\n' "$*" >&2; }
need() {
  command -v "$1" >/dev/null 2>&1 || { log "$1 is not installed: $2"; exit 1; }
}

need docker "install Docker (https://docs.docker.com/engine/install/)."
need kind "install kind (https://kind.sigs.k8s.io/docs/user/quick-start/#installation)."
need kubectl "install kubectl (https://kubernetes.io/docs/tasks/tools/)."
docker info >/dev/null 2>&1 || { log "the Docker engine is not running (docker info failed)."; exit 1; }
if command -v helm >/dev/null 2>&1; then HELM=helm; else HELM=$("$ROOT/scripts/helm/build.sh"); fi

if kind get clusters 2>/dev/null | grep -qx "$CLUSTER"; then
  log "using the existing kind cluster $CLUSTER"
else
  log "creating kind cluster $CLUSTER"
  kind create cluster --name "$CLUSTER" --wait 120s
fi
CONTEXT="kind-$CLUSTER"

log "building $IMAGE_REPOSITORY:$IMAGE_TAG"
docker build -t "$IMAGE_REPOSITORY:$IMAGE_TAG" "$ROOT"
log "loading the image into $CLUSTER"
kind load docker-image --name "$CLUSTER" "$IMAGE_REPOSITORY:$IMAGE_TAG"

# The chart installs and upgrades the CRDs itself (crds.enabled), so a re-run after a schema
# change is current. CRDs an older version of this script applied with kubectl are handed to
# the release first (Helm refuses objects it does not own).
for crd in $(kubectl --context "$CONTEXT" get crd -o name | grep '\.slipway\.dev$' || true); do
  kubectl --context "$CONTEXT" label "$crd" app.kubernetes.io/managed-by=Helm --overwrite >/dev/null
  kubectl --context "$CONTEXT" annotate "$crd" meta.helm.sh/release-name="$RELEASE" \
    meta.helm.sh/release-namespace="$NAMESPACE" --overwrite >/dev/null
done
log "installing the chart as $RELEASE in $NAMESPACE"
"$HELM" upgrade --install "$RELEASE" "$ROOT/charts/slipway" \
  --kube-context "$CONTEXT" --namespace "$NAMESPACE" --create-namespace \
  --set image.repository="$IMAGE_REPOSITORY" --set image.tag="$IMAGE_TAG" \
  --set image.pullPolicy=Never \
  --wait --timeout 5m "$@"

kubectl --context "$CONTEXT" -n "$NAMESPACE" get pods
log "done. Remove it all with: kind delete cluster --name $CLUSTER"
