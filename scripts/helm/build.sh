#!/bin/sh
# Builds the helm CLI from the Go module proxy into a cache folder outside the git clone,
# keyed by version, and prints the path of the binary. A warm cache returns at once.
#   scripts/helm/build.sh                         # the pinned version below
#   SLIPWAY_HELM_VERSION=v3.22.0 scripts/helm/build.sh   # any v3.x or v4.x tag
# No release downloads are needed (get.helm.sh is not reachable on our machines); helm's
# go.mod has no replace directives, so `go install` of the tagged module works as is.
set -eu

HELM_VERSION="${SLIPWAY_HELM_VERSION:-v4.3.1}"
CACHE_ROOT="${SLIPWAY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slipway}"
DIR="$CACHE_ROOT/helm/$HELM_VERSION"
HELM="$DIR/helm"

log() { printf '[helm:build] %s\n' "$*" >&2; }

if [ -x "$HELM" ]; then
  echo "$HELM"
  exit 0
fi

case "$HELM_VERSION" in
  v3.*) MODULE=helm.sh/helm/v3 ;;
  v4.*) MODULE=helm.sh/helm/v4 ;;
  *) log "SLIPWAY_HELM_VERSION must be a v3.x or v4.x tag, got '$HELM_VERSION'."; exit 1 ;;
esac

. "$(dirname "$0")/../require-go.sh"
require_go "helm $HELM_VERSION"

export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-buildvcs=false
start=$(date +%s)
log "building helm $HELM_VERSION into $DIR (one time; first build takes a few minutes)"

# Stamp the version the way helm's Makefile does. Without it `helm version` prints a bare
# "v4.3" and helm v3 assumes Kubernetes 1.20 for `.Capabilities` and the chart's kubeVersion.
gomod=$(go mod download -json "$MODULE@$HELM_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
if [ -z "$gomod" ]; then
  log "could not download $MODULE@$HELM_VERSION from the Go module proxy."
  exit 1
fi
client_go=$(sed -n 's/^[[:space:]]*k8s\.io\/client-go v0\.\([0-9]*\)\..*/\1/p' "$gomod" | head -n 1)
ld="-s -w -X $MODULE/internal/version.version=$HELM_VERSION -X $MODULE/internal/version.gitTreeState=clean"
if [ "$MODULE" = helm.sh/helm/v3 ] && [ -n "$client_go" ]; then
  for p in pkg/lint/rules pkg/chartutil; do
    ld="$ld -X $MODULE/$p.k8sVersionMajor=1 -X $MODULE/$p.k8sVersionMinor=$client_go"
  done
fi

mkdir -p "$DIR"
tmp="$DIR/tmp.$$"
trap 'rm -rf "$tmp"' EXIT
# Module downloads go to a log, shown only if the install fails: progress lines only.
GOBIN="$tmp" go install -trimpath -ldflags "$ld" "$MODULE/cmd/helm@$HELM_VERSION" >"$DIR/install.log" 2>&1 \
  || { cat "$DIR/install.log" >&2; exit 1; }
mv "$tmp/helm" "$HELM"
log "[$(( $(date +%s) - start ))s] done: $("$HELM" version --short 2>/dev/null || echo "$HELM")"
echo "$HELM"
