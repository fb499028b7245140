#!/bin/sh
# Builds the binaries of a real node from the Go module proxy into the cache (versions.sh):
# kubelet, kube-proxy, containerd (+ runc shim), BuildKit (buildkitd, buildctl), rootlesskit, the
# distribution registry and crane; and, in their own folder ($SERVICES_BIN), what a cluster runs
# beside its nodes: CoreDNS and versitygw (an S3-compatible store). A warm cache returns at once.
# Prints the node's bin folder.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/versions.sh"
BINARIES="kubelet kube-proxy containerd containerd-shim-runc-v2 buildkitd buildctl rootlesskit registry crane"
log() { printf '[real-node:build] %s\n' "$*" >&2; }
start=$(date +%s)
step() { log "[$(( $(date +%s) - start ))s] $*"; }

SERVICES="coredns versitygw"
complete() {
  for b in $BINARIES; do [ -x "$NODE_BIN/$b" ] || return 1; done
  for b in $SERVICES; do [ -x "$SERVICES_BIN/$b" ] || return 1; done
  [ -x "$KUBE_ROUTER_BIN/kube-router" ]
}
if complete; then echo "$NODE_BIN"; exit 0; fi

. "$here/../require-go.sh"
require_go "the real node (kubelet $K8S_VERSION, containerd $CONTAINERD_VERSION, BuildKit $BUILDKIT_VERSION)"
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-buildvcs=false
WORK="$NODE_CACHE/work"
mkdir -p "$NODE_BIN" "$SERVICES_BIN" "$KUBE_ROUTER_BIN" "$WORK"
log "building the real node into $NODE_BIN (one time, 5-15 min on 2 cores; later runs reuse it)"

# go_module <dir> <module@version>...: a scratch module that requires the given modules.
go_module() {
  dir="$WORK/$1"; shift
  mkdir -p "$dir"; cd "$dir"
  [ -f go.mod ] || go mod init "slipway.local/$(basename "$dir")-build" >/dev/null 2>&1
  go get "$@" >get.log 2>&1 || { cat get.log >&2; exit 1; }
}
# go_build <output name> <package> [ldflags] [tags] [bin folder]
go_build() {
  out="${5:-$NODE_BIN}/$1"
  [ -x "$out" ] && return 0
  step "building $1"
  go build -trimpath -tags "${4:-}" -ldflags "-s -w ${3:-}" -o "$out.tmp" "$2"
  mv "$out.tmp" "$out"
}

. "$here/../kube-module.sh"
if [ ! -x "$NODE_BIN/kubelet" ] || [ ! -x "$NODE_BIN/kube-proxy" ]; then
  step "resolving k8s.io/kubernetes@$K8S_VERSION for kubelet and kube-proxy"
  build_kube_commands "$WORK/kubernetes" "$K8S_VERSION" "$NODE_BIN" kubelet kube-proxy
fi

if ! [ -x "$NODE_BIN/containerd" ] || ! [ -x "$NODE_BIN/containerd-shim-runc-v2" ]; then
  step "resolving containerd $CONTAINERD_VERSION"
  cd_mod=github.com/containerd/containerd/v2
  go_module containerd "$cd_mod/cmd/containerd@$CONTAINERD_VERSION" "$cd_mod/cmd/containerd-shim-runc-v2@$CONTAINERD_VERSION"
  for c in containerd containerd-shim-runc-v2; do
    go_build "$c" "$cd_mod/cmd/$c" "-X $cd_mod/version.Version=$CONTAINERD_VERSION" "no_btrfs no_devmapper no_zfs"
  done
fi

if ! [ -x "$NODE_BIN/buildkitd" ] || ! [ -x "$NODE_BIN/buildctl" ]; then
  step "resolving BuildKit $BUILDKIT_VERSION"
  go_module buildkit "github.com/moby/buildkit/cmd/buildkitd@$BUILDKIT_VERSION" "github.com/moby/buildkit/cmd/buildctl@$BUILDKIT_VERSION"
  for c in buildkitd buildctl; do
    go_build "$c" "github.com/moby/buildkit/cmd/$c" "-X github.com/moby/buildkit/version.Version=$BUILDKIT_VERSION"
  done
fi

if ! [ -x "$NODE_BIN/rootlesskit" ]; then
  step "resolving rootlesskit $ROOTLESSKIT_VERSION"
  go_module rootlesskit "github.com/rootless-containers/rootlesskit/v2/cmd/rootlesskit@$ROOTLESSKIT_VERSION"
  go_build rootlesskit github.com/rootless-containers/rootlesskit/v2/cmd/rootlesskit
fi

if ! [ -x "$NODE_BIN/registry" ] || ! [ -x "$NODE_BIN/crane" ]; then
  step "resolving the registry $REGISTRY_VERSION and crane $CRANE_VERSION"
  go_module registry "github.com/distribution/distribution/v3/cmd/registry@$REGISTRY_VERSION" \
    "github.com/google/go-containerregistry/cmd/crane@$CRANE_VERSION"
  go_build registry github.com/distribution/distribution/v3/cmd/registry
  go_build crane github.com/google/go-containerregistry/cmd/crane
fi

if ! [ -x "$SERVICES_BIN/coredns" ]; then
  step "resolving CoreDNS $COREDNS_VERSION"
  go_module coredns "github.com/coredns/coredns@$COREDNS_VERSION"
  go_build coredns github.com/coredns/coredns "-X github.com/coredns/coredns/coremain.GitCommit=$COREDNS_VERSION" "" "$SERVICES_BIN"
fi

if ! [ -x "$SERVICES_BIN/versitygw" ]; then
  step "resolving versitygw $VERSITYGW_VERSION"
  go_module versitygw "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"
  go_build versitygw github.com/versity/versitygw/cmd/versitygw "" "" "$SERVICES_BIN"
fi

if ! [ -x "$KUBE_ROUTER_BIN/kube-router" ]; then
  step "resolving kube-router $KUBE_ROUTER_VERSION (the NetworkPolicy enforcer)"
  go_module kube-router "github.com/cloudnativelabs/kube-router/v2/cmd/kube-router@$KUBE_ROUTER_VERSION"
  go_build kube-router github.com/cloudnativelabs/kube-router/v2/cmd/kube-router "" "" "$KUBE_ROUTER_BIN"
fi

step "done"
echo "$NODE_BIN"
