# Sourced: the versions of everything the real node is built from, and where they are cached
# (outside the clone, one folder per set of versions, so a version change builds afresh).
K8S_VERSION="${SLIPWAY_K8S_VERSION:-v1.36.3}"
CONTAINERD_VERSION="${SLIPWAY_CONTAINERD_VERSION:-v2.4.2}"
BUILDKIT_VERSION="${SLIPWAY_BUILDKIT_VERSION:-v0.34.2}"
ROOTLESSKIT_VERSION="${SLIPWAY_ROOTLESSKIT_VERSION:-v2.3.6}"
REGISTRY_VERSION="${SLIPWAY_REGISTRY_VERSION:-v3.1.2}"
CRANE_VERSION="${SLIPWAY_CRANE_VERSION:-v0.22.1}"
# What a cluster runs besides its nodes: cluster DNS and an S3-compatible store (shared archives
# of the gateway's replicas). Cached apart from the node's binaries, so a change here rebuilds
# only these. (The ingress controller's proxy is Debian's caddy: see packages.sh.)
COREDNS_VERSION="${SLIPWAY_COREDNS_VERSION:-v1.14.7}"
VERSITYGW_VERSION="${SLIPWAY_VERSITYGW_VERSION:-v1.8.0}"
# Raise when an image recipe in images.sh changes: the tag of every image built here.
IMAGES_REVISION=r6
DEBIAN_SUITE=bookworm
CACHE_ROOT="${SLIPWAY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slipway}"
NODE_KEY="k8s-${K8S_VERSION}_containerd-${CONTAINERD_VERSION}_buildkit-${BUILDKIT_VERSION}_rootlesskit-${ROOTLESSKIT_VERSION}_registry-${REGISTRY_VERSION}_crane-${CRANE_VERSION}"
NODE_CACHE="$CACHE_ROOT/real-node/$NODE_KEY"
NODE_BIN="$NODE_CACHE/bin"
SERVICES_KEY="coredns-${COREDNS_VERSION}_versitygw-${VERSITYGW_VERSION}"
SERVICES_BIN="$CACHE_ROOT/real-node/services/$SERVICES_KEY/bin"
NODE_IMAGES="$NODE_CACHE/images-$IMAGES_REVISION"
# The NetworkPolicy enforcer (the bridge CNI enforces none): kube-router's firewall alone, built
# from the Go module proxy (the only version it lists), cached apart from the node's binaries.
# kube-network-policies needs the nftables queue statement, which this kernel lacks
# (shared/notes/network-policy.md, docs/local-control-plane.md).
KUBE_ROUTER_VERSION="${SLIPWAY_KUBE_ROUTER_VERSION:-v2.1.0}"
KUBE_ROUTER_BIN="$CACHE_ROOT/real-node/kube-router-$KUBE_ROUTER_VERSION/bin"
