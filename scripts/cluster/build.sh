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

# kwok's own default stages (what its simulated kubelet does), read by control-plane.ts, which
# adds what a build pod's push container reports.
STAGES="$CACHE_ROOT/control-plane/$KEY/kwok-stages"
STAGE_FILES="node/fast/node-initialize node/heartbeat-with-lease/node-heartbeat-with-lease pod/fast/pod-ready pod/fast/pod-complete pod/fast/pod-delete"

complete() {
  for b in $BINARIES; do [ -x "$BIN/$b" ] || return 1; done
  [ -d "$STAGES" ]
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

. "$(dirname "$0")/../kube-module.sh"
kube() {
  step "resolving and downloading k8s.io/kubernetes@$K8S_VERSION (first time: several minutes)"
  build_kube_commands "$WORK/kubernetes" "$K8S_VERSION" "$BIN" kube-apiserver kube-controller-manager kube-scheduler kubectl
}

etcd() {
  [ -x "$BIN/etcd" ] && return 0
  dir="$WORK/etcd"; mkdir -p "$dir"; cd "$dir"
  [ -f go.mod ] || go mod init slipway.local/etcd-build >/dev/null 2>&1
  step "building etcd $ETCD_VERSION"
  go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >get.log 2>&1 || { cat get.log >&2; exit 1; }
  go build -trimpath -ldflags "-s -w" -o "$BIN/etcd.tmp" go.etcd.io/etcd/server/v3
  mv "$BIN/etcd.tmp" "$BIN/etcd"
}

kwok() {
  for c in kwok kwokctl; do
    [ -x "$BIN/$c" ] && continue
    step "building $c $KWOK_VERSION"
    # Its module downloads go to a log, shown only if the install fails: progress lines only.
    GOBIN="$BIN" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/$c@$KWOK_VERSION" \
      >"$WORK/install-$c.log" 2>&1 || { cat "$WORK/install-$c.log" >&2; exit 1; }
  done
}

kwok_stages() {
  [ -d "$STAGES" ] && return 0
  dir=$(cd "$WORK" && go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
  mkdir -p "$STAGES.tmp"
  for f in $STAGE_FILES; do
    [ -f "$dir/kustomize/stage/$f.yaml" ] || { log "kwok stage $f not found in sigs.k8s.io/kwok@$KWOK_VERSION ($dir)"; exit 1; }
    cp "$dir/kustomize/stage/$f.yaml" "$STAGES.tmp/$(basename "$f").yaml"
  done
  mv "$STAGES.tmp" "$STAGES"
}

log "building the local control plane into $BIN (one time; later runs reuse it)"
etcd
kwok
kwok_stages
kube
step "done"
echo "$BIN"
