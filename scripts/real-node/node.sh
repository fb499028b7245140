#!/bin/sh
# The host side of the real node: run as root.
#   node.sh host-up     registry (with the cached images pushed) and containerd on HOST_ADDRESS
#   node.sh kubelet-up <kubeconfig>   the kubelet, registering node "slipway-node"
#   node.sh down        stops all of it and undoes every host change (also after a crash)
# Every process is recorded in a pid file and stopped only if it is still that process; the
# state lives in $NODE_DIR and $RUN_DIR, so down can always find and remove it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/versions.sh"
HOST_ADDRESS="${SLIPWAY_NODE_ADDRESS:-172.30.255.1}"
REGISTRY="$HOST_ADDRESS:5000"
NODE_NAME=slipway-node
NODE_DIR=/var/lib/slipway-node
RUN_DIR=/run/slipway-node
BRIDGE=slipway0
POD_SUBNET=10.88.0.0/16
CNI_NETWORK=slipway-pods
LOGS="$NODE_DIR/logs"
log() { printf '[real-node] %s\n' "$*" >&2; }

# start <name> <command...>: runs a daemon with its log in $LOGS and its pid in $RUN_DIR.
start() {
  name=$1; shift
  "$@" >"$LOGS/$name.log" 2>&1 &
  echo $! > "$RUN_DIR/$name.pid"
}
# stop <name> <text its command line contains>
stop() {
  f="$RUN_DIR/$1.pid"
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if ps -o args= -p "$pid" 2>/dev/null | grep -q -- "$2"; then
    kill "$pid" 2>/dev/null || true
    i=0; while ps -p "$pid" >/dev/null 2>&1 && [ $i -lt 40 ]; do sleep 0.25; i=$((i + 1)); done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}
# until_ok <what> <seconds> <command...>
until_ok() {
  what=$1; limit=$2; shift 2
  i=0
  until "$@" >/dev/null 2>&1; do
    i=$((i + 1))
    if [ $i -gt $((limit * 4)) ]; then log "timed out after ${limit}s waiting for $what"; return 1; fi
    sleep 0.25
  done
}

host_up() {
  [ "$(id -u)" = 0 ] || { log "a real node needs root: run this as root (CI machines are root)."; exit 1; }
  sh "$here/packages.sh"
  BIN=$(sh "$here/build.sh")
  IMAGES=$(sh "$here/images.sh")
  mkdir -p "$NODE_DIR" "$RUN_DIR" "$LOGS"
  sysctl -n net.ipv4.ip_forward > "$NODE_DIR/ip_forward.before"
  # One address both the host (containerd pulling) and pods (BuildKit pushing, git, databases)
  # reach: an extra address on lo (this kernel has no dummy interfaces).
  ip addr add "$HOST_ADDRESS/32" dev lo 2>/dev/null || true

  cat > "$NODE_DIR/registry.yml" <<Y
version: 0.1
log: {level: warn}
storage: {filesystem: {rootdirectory: $NODE_DIR/registry}, delete: {enabled: true}}
http: {addr: "$REGISTRY"}
Y
  start registry "$BIN/registry" serve "$NODE_DIR/registry.yml"
  until_ok "the registry" 20 curl -sf "http://$REGISTRY/v2/"
  for tarball in "$IMAGES"/*.tar; do
    name=$(basename "$tarball" .tar)
    "$BIN/crane" push --insecure "$tarball" "$REGISTRY/slipway/$name:$IMAGES_REVISION" >>"$LOGS/crane.log" 2>&1 ||
      { tail -n 20 "$LOGS/crane.log" >&2; exit 1; }
  done

  mkdir -p "$NODE_DIR/certs.d/$REGISTRY" "$NODE_DIR/cni"
  printf 'server = "http://%s"\n[host."http://%s"]\n  capabilities = ["pull", "resolve", "push"]\n' \
    "$REGISTRY" "$REGISTRY" > "$NODE_DIR/certs.d/$REGISTRY/hosts.toml"
  cat > "$NODE_DIR/cni/10-slipway.conflist" <<Y
{"cniVersion": "1.0.0", "name": "$CNI_NETWORK", "plugins": [
  {"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": true, "hairpinMode": true,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_SUBNET"}]], "routes": [{"dst": "0.0.0.0/0"}],
            "dataDir": "$NODE_DIR/cni-ipam"}},
  {"type": "portmap", "capabilities": {"portMappings": true}}, {"type": "loopback"}]}
Y
  cat > "$NODE_DIR/containerd.toml" <<Y
version = 3
root = "$NODE_DIR/containerd"
state = "$RUN_DIR/containerd"
[grpc]
  address = "$RUN_DIR/containerd.sock"
[plugins.'io.containerd.cri.v1.images']
  snapshotter = 'overlayfs'
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = '$REGISTRY/slipway/pause:$IMAGES_REVISION'
  [plugins.'io.containerd.cri.v1.images'.registry]
    config_path = '$NODE_DIR/certs.d'
[plugins.'io.containerd.cri.v1.runtime']
  # This VM's root lacks CAP_SYS_RESOURCE: a negative oom_score_adj (the sandbox's -998) is
  # refused and every sandbox fails ("nsexec: failed to update /proc/self/oom_score_adj").
  restrict_oom_score_adj = true
  [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
    runtime_type = 'io.containerd.runc.v2'
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
      BinaryName = '/usr/sbin/runc'
      Root = '$RUN_DIR/runc'
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ['/usr/lib/cni']
    conf_dir = '$NODE_DIR/cni'
Y
  PATH="$BIN:$PATH" start containerd "$BIN/containerd" --config "$NODE_DIR/containerd.toml"
  until_ok "containerd" 30 test -S "$RUN_DIR/containerd.sock"
  # What the project needs to know about this node (read by scripts/cluster/real-node.ts).
  r="$REGISTRY/slipway"; t=$IMAGES_REVISION
  cat > "$NODE_DIR/node.json" <<Y
{"hostAddress": "$HOST_ADDRESS", "registry": "$REGISTRY", "nodeName": "$NODE_NAME",
 "images": {"fetch": "$r/tools:$t", "builder": "$r/buildkit:$t", "backupMysql": "$r/tools:$t", "backupPostgresql": "$r/tools:$t"},
 "baseImages": {"static-web": {"image": "$r/static-web:$t", "port": 8080}, "php": {"image": "$r/php:$t", "port": 8080}}}
Y
  log "registry at $REGISTRY with the node's images; containerd running"
}

kubelet_up() {
  BIN=$(sh "$here/build.sh")
  kubeconfig=$1
  mkdir -p "$NODE_DIR/kubelet" "$NODE_DIR/pod-logs"
  grep -v '^#' /etc/resolv.conf > "$NODE_DIR/resolv.conf"
  cat > "$NODE_DIR/kubelet.yaml" <<Y
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# This VM mounts cgroup v1 hierarchies; kubelet >= 1.35 refuses them unless told otherwise.
failCgroupV1: false
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://$RUN_DIR/containerd.sock
address: $HOST_ADDRESS
port: 10250
healthzBindAddress: 127.0.0.1
healthzPort: 10248
readOnlyPort: 0
authentication: {anonymous: {enabled: true}, webhook: {enabled: false}}
authorization: {mode: AlwaysAllow}
failSwapOn: false
resolvConf: $NODE_DIR/resolv.conf
podLogsDir: $NODE_DIR/pod-logs
serializeImagePulls: false
maxPods: 60
evictionHard: {memory.available: "100Mi", nodefs.available: "2%", imagefs.available: "2%"}
imageGCHighThresholdPercent: 99
imageGCLowThresholdPercent: 98
Y
  start kubelet "$BIN/kubelet" --config "$NODE_DIR/kubelet.yaml" --kubeconfig "$kubeconfig" \
    --root-dir "$NODE_DIR/kubelet" --hostname-override "$NODE_NAME" --node-ip "$HOST_ADDRESS" --v=1
  until_ok "the kubelet's health endpoint" 60 curl -sf http://127.0.0.1:10248/healthz ||
    { tail -n 30 "$LOGS/kubelet.log" >&2; exit 1; }
}

down() {
  [ "$(id -u)" = 0 ] || { log "stopping the real node needs root."; exit 1; }
  stop kubelet "$NODE_DIR/kubelet.yaml"
  # Containers first (runc knows them even when containerd is gone), then their shims.
  if [ -d "$RUN_DIR/runc" ]; then
    for ns in "$RUN_DIR"/runc/*; do
      [ -d "$ns" ] || continue
      for id in $(runc --root "$ns" list -q 2>/dev/null); do runc --root "$ns" delete --force "$id" >/dev/null 2>&1 || true; done
    done
  fi
  stop containerd "$NODE_DIR/containerd.toml"
  for pid in $(pgrep -f "containerd-shim-runc-v2 .*-address $RUN_DIR/containerd.sock" || true); do kill -9 "$pid" 2>/dev/null || true; done
  stop registry "$NODE_DIR/registry.yml"
  # Mounts under our folders (overlay rootfs, volumes, shm), deepest first; network namespaces.
  for m in $(awk -v a="$NODE_DIR/" -v b="$RUN_DIR/" 'index($2, a) == 1 || index($2, b) == 1 {print $2}' /proc/mounts | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
  for m in $(awk '$2 ~ "^/run/netns/cni-" {print $2}' /proc/mounts); do umount "$m" 2>/dev/null || true; rm -f "$m"; done
  # Network: the bridge, the lo address, ip_forward as it was, the kubelet's and CNI's iptables chains.
  ip link del "$BRIDGE" 2>/dev/null || true
  ip addr del "$HOST_ADDRESS/32" dev lo 2>/dev/null || true
  [ -f "$NODE_DIR/ip_forward.before" ] && sysctl -qw "net.ipv4.ip_forward=$(cat "$NODE_DIR/ip_forward.before")"
  for ipt in iptables ip6tables; do
    command -v "$ipt-save" >/dev/null 2>&1 || continue
    for table in filter nat mangle; do
      rules=$("$ipt-save" -t "$table" 2>/dev/null || true)
      # Rules that jump to our chains, then the chains (CNI-* from the bridge's ipMasq and portmap).
      echo "$rules" | grep -E '^-A [A-Z]+ .*-j (KUBE-|CNI-)' | sed 's/^-A /-D /' | while read -r rule; do
        eval "$ipt -t $table $rule" 2>/dev/null || true
      done
      for chain in $(echo "$rules" | sed -n 's/^:\(\(KUBE\|CNI\)-[^ ]*\) .*/\1/p'); do
        "$ipt" -t "$table" -F "$chain" 2>/dev/null || true
      done
      for chain in $(echo "$rules" | sed -n 's/^:\(\(KUBE\|CNI\)-[^ ]*\) .*/\1/p'); do
        "$ipt" -t "$table" -X "$chain" 2>/dev/null || true
      done
    done
  done
  # cgroups the kubelet made, deepest first.
  for h in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods; do
    [ -d "$h" ] && find "$h" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
  # State: containers, images, volumes, logs of this node; CNI's result cache for our network.
  rm -rf "$RUN_DIR" "$NODE_DIR" /var/lib/cni/results/"$CNI_NETWORK"-* 2>/dev/null || true
  find /var/log/containers -xtype l -delete 2>/dev/null || true
  rmdir /var/log/containers 2>/dev/null || true
  rmdir /run/netns 2>/dev/null || true
}

case "${1:-}" in
  host-up) down; host_up ;;
  kubelet-up) kubelet_up "$2" ;;
  down) down ;;
  *) echo "usage: node.sh host-up | kubelet-up <kubeconfig> | down" >&2; exit 2 ;;
esac
