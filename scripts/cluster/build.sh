#!/bin/sh
# Builds the local control plane (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kubectl, kwok, kwokctl) from the Go module proxy into a cache folder
# outside the git clone, keyed by the versions, and prints that folder.
# A warm cache returns at once. See docs/local-control-plane.md.
set -eu

K8S_VERSION="${SLIPWAY_K8S_VERSION:-v1.36.3}"
ETCD_VERSION="${SLIPWAY_ETCD_VERSION:-v3.6.16}"
KWOK_VERSION="${SLIPWAY_KWOK_VERSION:-v0.8.0}"
CACHE_ROOT="${SLIPWAY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slipway}"
KEY="k8s-${K8S_VERSION}_etcd-${ETCD_VERSION}_kwok-${KWOK_VERSION}"
BIN="$CACHE_ROOT/control-plane/$KEY/bin"
BINARIES="etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok kwokctl"

log() { printf '[cluster:build] %s\n' "$*" >&2; }

complete() {
  for b in $BINARIES; do [ -x "$BIN/$b" ] || return 1; done
}

if complete; then
  echo "$BIN"
  exit 0
fi

. "$(dirname "$0")/../require-go.sh"
require_go "kwok $KWOK_VERSION and Kubernetes $K8S_VERSION"

export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-buildvcs=false
mkdir -p "$BIN"
WORK="$CACHE_ROOT/control-plane/$KEY/work"
mkdir -p "$WORK"
start=$(date +%s)
step() { log "[$(( $(date +%s) - start ))s] $*"; }

# kube binaries: k8s.io/kubernetes pins its staging modules at v0.0.0 with local replaces,
# so a wrapper module replaces each of them with the published v0.<minor>.<patch> tag.
kube() {
  dir="$WORK/kubernetes"; mkdir -p "$dir"; cd "$dir"
  [ -f go.mod ] || go mod init slipway.local/kube-build >/dev/null 2>&1
  step "resolving k8s.io/kubernetes@$K8S_VERSION"
  gomod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
  staging="v0.${K8S_VERSION#v1.}"
  for m in $(sed -n 's/^[[:space:]]*\(k8s\.io\/[a-z0-9-]*\) v0\.0\.0$/\1/p' "$gomod" | sort -u); do
    go mod edit "-replace=$m=$m@$staging"
  done
  go mod edit "-require=k8s.io/kubernetes@$K8S_VERSION"
  # The kubernetes go.mod's own replace directives are not inherited; copy the non-staging ones.
  step "downloading modules (first time: several minutes)"
  go get "k8s.io/kubernetes/cmd/kube-apiserver@$K8S_VERSION" \
         "k8s.io/kubernetes/cmd/kube-controller-manager@$K8S_VERSION" \
         "k8s.io/kubernetes/cmd/kube-scheduler@$K8S_VERSION" \
         "k8s.io/kubernetes/cmd/kubectl@$K8S_VERSION" >&2
  minor=$(echo "$K8S_VERSION" | cut -d. -f2)
  ld="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld="$ld -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  for c in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
    [ -x "$BIN/$c" ] && continue
    step "building $c $K8S_VERSION (first time: several minutes each on 2 cores)"
    go build -trimpath -tags=selinux,notest -ldflags "$ld" -o "$BIN/$c.tmp" "k8s.io/kubernetes/cmd/$c"
    mv "$BIN/$c.tmp" "$BIN/$c"
  done
}

etcd() {
  [ -x "$BIN/etcd" ] && return 0
  dir="$WORK/etcd"; mkdir -p "$dir"; cd "$dir"
  [ -f go.mod ] || go mod init slipway.local/etcd-build >/dev/null 2>&1
  step "building etcd $ETCD_VERSION"
  go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >&2
  go build -trimpath -ldflags "-s -w" -o "$BIN/etcd.tmp" go.etcd.io/etcd/server/v3
  mv "$BIN/etcd.tmp" "$BIN/etcd"
}

kwok() {
  for c in kwok kwokctl; do
    [ -x "$BIN/$c" ] && continue
    step "building $c $KWOK_VERSION"
    GOBIN="$BIN" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/$c@$KWOK_VERSION"
  done
}

log "building the local control plane into $BIN (one time; later runs reuse it)"
etcd
kwok
kube
step "done"
echo "$BIN"
