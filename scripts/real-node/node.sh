#!/bin/sh
# The host side of the real node: run as root, on Linux.
#   node.sh host-up <cluster>         the registry's host door (with the cached images pushed) and
#                                     containerd on HOST_ADDRESS
#   node.sh registry-door <realm> <jwks>  (re)starts the registry's door for pods on HOST_ADDRESS,
#                                     trusting the tokens of the gateway at <realm> (docs/adr/0006)
#   node.sh kubelet-up <kubeconfig>   cluster DNS (CoreDNS), the kubelet registering node
#                                     "slipway-node", kube-proxy and the ingress controller (Caddy)
#   node.sh down                      stops all of it and undoes every host change (also after a crash)
# Every process is recorded in a pid file and stopped only if it is still that process. What the
# host looked like before (sysctls, iptables chains, folders the kubelet and CNI create) is
# recorded in $NODE_DIR at host-up, so down removes only what this node added, even after a crash.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/versions.sh"
NODE_NAME=slipway-node
NODE_DIR=/var/lib/slipway-node
RUN_DIR=/run/slipway-node
BRIDGE=slipway0
POD_SUBNET=10.213.0.0/16
POD_PREFIX=10.213.
CNI_NETWORK=slipway-pods
CGROUP_ROOT=slipway
LOGS="$NODE_DIR/logs"
# Where the ingress controller serves Ingresses (every address of this machine) and the S3 store.
INGRESS_PORT="${SLIPWAY_INGRESS_PORT:-80}"
# Host names the installed release's Ingresses answer to, resolved to HOST_ADDRESS by /etc/hosts
# lines that end with HOSTS_MARK (down removes exactly those). .test is reserved for testing.
GATEWAY_HOST=hooks.slipway.test
STATUS_HOST=status.slipway.test
HOSTS_MARK="# slipway-node"
S3_PORT=7070
S3_BUCKET=slipway-archives
# Kernel settings the kubelet changes (setupKernelTunables) and the CNI bridge sets.
SYSCTLS="net.ipv4.ip_forward net.ipv4.conf.all.route_localnet net.bridge.bridge-nf-call-iptables kernel.panic kernel.panic_on_oops vm.overcommit_memory vm.panic_on_oom kernel.keys.root_maxkeys kernel.keys.root_maxbytes"
# Host folders the kubelet and CNI create outside our own (device-plugin socket, CNI cache, log links).
HOST_PATHS="/var/lib/kubelet /var/lib/cni /var/log/containers"
log() { printf '[real-node] %s\n' "$*" >&2; }

# start <name> <command...>: runs a daemon with its log in $LOGS and its pid in $RUN_DIR.
start() {
  name=$1; shift
  # (fd 9, the lock, is not passed on: a daemon holding it would block every later call)
  "$@" >"$LOGS/$name.log" 2>&1 9>&- &
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

# The registry has two doors over one storage (docs/adr/0006). Pods (builds) reach only the first,
# HOST_ADDRESS:5000, which asks for a token from Slipway's gateway (registry-door). The host's own
# tools (crane, helm) and the node's container runtime, as node credentials would in a cloud, use
# the second, on the host's loopback, which no pod reaches: containerd takes it as a mirror of the
# first, so images keep the one name $REGISTRY/… everywhere.
HOST_REGISTRY=127.0.0.1:5001
REGISTRY_SERVICE=slipway-registry
REGISTRY_ISSUER=slipway

host_up() {
  HOST_ADDRESS="${SLIPWAY_NODE_ADDRESS:-172.30.255.1}"
  REGISTRY="$HOST_ADDRESS:5000"
  sh "$here/packages.sh"
  BIN=$(sh "$here/build.sh")
  IMAGES=$(sh "$here/images.sh")
  mkdir -p "$NODE_DIR" "$RUN_DIR" "$LOGS"
  echo "$1" > "$NODE_DIR/cluster"
  echo "$HOST_ADDRESS" > "$NODE_DIR/address"
  # The host as it was, for down.
  for k in $SYSCTLS; do v=$(sysctl -n "$k" 2>/dev/null) && echo "$k=$v"; done > "$NODE_DIR/sysctl.before"
  for d in $HOST_PATHS; do [ -e "$d" ] && echo "$d"; done > "$NODE_DIR/paths.before" || true
  ls /var/lib/cni/results 2>/dev/null > "$NODE_DIR/cni-results.before" || true
  for ipt in iptables ip6tables; do "$ipt-save" 2>/dev/null | sed -n 's/^:\(KUBE-[^ ]*\) .*/\1/p'; done | sort -u > "$NODE_DIR/chains.before" || true
  ipset list -n 2>/dev/null | sort -u > "$NODE_DIR/ipsets.before" || true
  # One address both the host (containerd pulling) and pods (BuildKit pushing, git, databases)
  # reach: an extra address on lo (this kernel has no dummy interfaces).
  ip addr add "$HOST_ADDRESS/32" dev lo 2>/dev/null || true
  # A pod reaching a Service whose endpoint is on the same bridge (a build Job downloading an
  # archive from the gateway) needs the bridge's traffic to pass iptables, where kube-proxy's
  # DNAT is undone on the way back.
  modprobe br_netfilter 2>/dev/null || true
  sysctl -qw net.bridge.bridge-nf-call-iptables=1 ||
    { log "net.bridge.bridge-nf-call-iptables cannot be set (no br_netfilter): pods could not reach Services on this node"; exit 1; }

  cat > "$NODE_DIR/registry.yml" <<Y
version: 0.1
log: {level: warn}
storage: {filesystem: {rootdirectory: $NODE_DIR/registry}, delete: {enabled: true}}
http: {addr: "$HOST_REGISTRY"}
Y
  start registry "$BIN/registry" serve "$NODE_DIR/registry.yml"
  until_ok "the registry" 20 curl -sf "http://$HOST_REGISTRY/v2/"
  for tarball in "$IMAGES"/*.tar; do
    name=$(basename "$tarball" .tar)
    "$BIN/crane" push --insecure "$tarball" "$HOST_REGISTRY/slipway/$name:$IMAGES_REVISION" >>"$LOGS/crane.log" 2>&1 ||
      { tail -n 20 "$LOGS/crane.log" >&2; exit 1; }
  done

  mkdir -p "$NODE_DIR/certs.d/$REGISTRY" "$NODE_DIR/cni"
  printf 'server = "http://%s"\n[host."http://%s"]\n  capabilities = ["pull", "resolve"]\n' \
    "$REGISTRY" "$HOST_REGISTRY" > "$NODE_DIR/certs.d/$REGISTRY/hosts.toml"
  cat > "$NODE_DIR/cni/10-slipway.conflist" <<Y
{"cniVersion": "1.0.0", "name": "$CNI_NETWORK", "plugins": [
  {"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": true, "hairpinMode": true,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_SUBNET"}]], "routes": [{"dst": "0.0.0.0/0"}],
            "dataDir": "$NODE_DIR/cni-ipam"}},
  {"type": "loopback"}]}
Y
  cat > "$NODE_DIR/containerd.toml" <<Y
version = 3
root = "$NODE_DIR/containerd"
state = "$RUN_DIR/containerd"
# NRI would listen on /var/run/nri/nri.sock; nothing here uses it.
disabled_plugins = ['io.containerd.nri.v1.nri']
[grpc]
  address = "$RUN_DIR/containerd.sock"
[plugins.'io.containerd.internal.v1.opt']
  path = '$NODE_DIR/opt'
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
  s3_up
  # What the project needs to know about this node (read by scripts/cluster/real-node.ts).
  r="$REGISTRY/slipway"; t=$IMAGES_REVISION
  cat > "$NODE_DIR/node.json" <<Y
{"hostAddress": "$HOST_ADDRESS", "registry": "$REGISTRY", "hostRegistry": "$HOST_REGISTRY",
 "registryToken": {"service": "$REGISTRY_SERVICE", "issuer": "$REGISTRY_ISSUER"}, "nodeName": "$NODE_NAME", "crane": "$BIN/crane",
 "images": {"fetch": "$r/tools:$t", "builder": "$r/buildkit:$t", "push": "$r/push:$t", "backupMysql": "$r/tools:$t", "backupPostgresql": "$r/tools:$t",
            "slipwayBase": "$r/slipway-base:$t"},
 "baseImages": {"static-web": {"image": "$r/static-web:$t", "port": 8080}, "php": {"image": "$r/php:$t", "port": 8080}},
 "builderImages": {"composer": "$r/composer:$t", "node": "$r/node:$t"},
 "s3": {"endpoint": "http://$HOST_ADDRESS:$S3_PORT", "region": "us-east-1", "bucket": "$S3_BUCKET",
        "accessKeyId": "$S3_ACCESS_KEY", "secretAccessKey": "$S3_SECRET_KEY"},
 "ingress": {"className": "caddy", "port": $INGRESS_PORT, "gatewayHost": "$GATEWAY_HOST", "statusHost": "$STATUS_HOST",
             "fromAddress": "${POD_PREFIX}0.1"}}
Y
  chmod 600 "$NODE_DIR/node.json"
  log "registry at $HOST_REGISTRY (host) with the node's images; containerd running"
}

# The registry's door for pods: $REGISTRY, token auth, trusting the JWKS file $2 of the gateway
# whose token endpoint is $1. Restarted with each Slipway the tiers start (the storage stays).
registry_door() {
  BIN=$(sh "$here/build.sh")
  HOST_ADDRESS=$(cat "$NODE_DIR/address")
  REGISTRY="$HOST_ADDRESS:5000"
  cp "$2" "$NODE_DIR/registry-jwks.json"
  cat > "$NODE_DIR/registry-pods.yml" <<Y
version: 0.1
log: {level: warn}
storage: {filesystem: {rootdirectory: $NODE_DIR/registry}, delete: {enabled: true}}
http: {addr: "$REGISTRY"}
auth:
  token: {realm: "$1", service: $REGISTRY_SERVICE, issuer: $REGISTRY_ISSUER, jwks: $NODE_DIR/registry-jwks.json}
Y
  stop registry-pods "$NODE_DIR/registry-pods.yml"
  start registry-pods "$BIN/registry" serve "$NODE_DIR/registry-pods.yml"
  asks_token() { [ "$(curl -s -o /dev/null -w '%{http_code}' "http://$REGISTRY/v2/")" = 401 ]; }
  until_ok "the registry's door for pods" 20 asks_token || { tail -n 20 "$LOGS/registry-pods.log" >&2; exit 1; }
}

# An S3-compatible store (versitygw over a folder) on the host address, with one bucket: the
# gateway's replicas share uploaded archives through it, as they would through S3 or MinIO.
s3_up() {
  S3_ACCESS_KEY=slipway; S3_SECRET_KEY=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
  mkdir -p "$NODE_DIR/s3"
  start s3 env ROOT_ACCESS_KEY_ID="$S3_ACCESS_KEY" ROOT_SECRET_ACCESS_KEY="$S3_SECRET_KEY" "$SERVICES_BIN/versitygw" --port "$HOST_ADDRESS:$S3_PORT" posix "$NODE_DIR/s3"
  s3() { curl -sf --aws-sigv4 "aws:amz:us-east-1:s3" --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"; }
  until_ok "the S3 store" 20 s3 "http://$HOST_ADDRESS:$S3_PORT/" || { tail -n 20 "$LOGS/s3.log" >&2; exit 1; }
  s3 -X PUT "http://$HOST_ADDRESS:$S3_PORT/$S3_BUCKET" >/dev/null || { log "could not create bucket $S3_BUCKET"; tail -n 20 "$LOGS/s3.log" >&2; exit 1; }
}

# Cluster DNS: CoreDNS on the host address (pods reach it there, as they reach the registry),
# answering <service>.<namespace>.svc.cluster.local from the API and the rest from the host's
# resolvers. The kubelet gives pods this address as their nameserver.
dns_up() {
  upstream=$(awk '$1 == "nameserver" {printf "%s ", $2}' "$NODE_DIR/resolv.conf")
  cat > "$NODE_DIR/Corefile" <<Y
.:53 {
  bind $HOST_ADDRESS
  errors
  health 127.0.0.1:10254
  ready 127.0.0.1:10253
  # The installed release's public names, as public DNS would answer them (the gateway's is the
  # registry's token endpoint, for builds too).
  hosts {
    $HOST_ADDRESS $GATEWAY_HOST $STATUS_HOST
    fallthrough
  }
  kubernetes cluster.local in-addr.arpa ip6.arpa {
    kubeconfig $1
    pods insecure
    fallthrough in-addr.arpa ip6.arpa
  }
  ${upstream:+forward . $upstream}
  cache 30
}
Y
  start coredns "$SERVICES_BIN/coredns" -conf "$NODE_DIR/Corefile"
  until_ok "CoreDNS" 30 curl -sf http://127.0.0.1:10253/ready || { tail -n 20 "$LOGS/coredns.log" >&2; exit 1; }
}

# Drops this node's lines from /etc/hosts, rewriting it in place (it may be a bind mount).
unlist_hosts() {
  grep -q "$HOSTS_MARK\$" /etc/hosts 2>/dev/null || return 0
  kept=$(grep -v "$HOSTS_MARK\$" /etc/hosts || true)
  printf '%s\n' "$kept" > /etc/hosts
}
list_hosts() {
  unlist_hosts
  # (a last line without its newline would otherwise be joined to ours, and removed with it)
  [ -z "$(tail -c1 /etc/hosts 2>/dev/null)" ] || echo >> /etc/hosts
  printf '%s %s %s %s\n' "$HOST_ADDRESS" "$GATEWAY_HOST" "$STATUS_HOST" "$HOSTS_MARK" >> /etc/hosts
}

# The ingress controller: Caddy (Debian's package) serving every Ingress of class "caddy" (the
# cluster's default class) on port $INGRESS_PORT of the host address and 127.0.0.1, configured
# through its admin API (a root-only unix socket) by ingress/controller.ts, which watches
# Ingresses, Services and EndpointSlices with the rights of its own ServiceAccount
# (ingress/rbac.yaml), as it would in a cluster.
ingress_up() {
  kubeconfig=$1
  kubectl="$(sh "$here/../cluster/build.sh")/kubectl --kubeconfig $kubeconfig"
  $kubectl apply -f "$here/ingress/rbac.yaml" >"$LOGS/ingress-apply.log" 2>&1 || { cat "$LOGS/ingress-apply.log" >&2; exit 1; }
  token=$($kubectl -n kube-system create token slipway-ingress --duration 8760h)
  server=$($kubectl config view --minify --raw -o jsonpath='{.clusters[0].cluster.server}')
  ca=$($kubectl config view --minify --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')
  [ -n "$ca" ] || ca=$(base64 -w0 < "$($kubectl config view --minify -o jsonpath='{.clusters[0].cluster.certificate-authority}')")
  mkdir -p "$NODE_DIR/ingress"
  ( umask 077; cat > "$NODE_DIR/ingress/kubeconfig" <<Y
apiVersion: v1
kind: Config
clusters: [{name: cluster, cluster: {server: "$server", certificate-authority-data: "$ca"}}]
users: [{name: slipway-ingress, user: {token: "$token"}}]
contexts: [{name: ingress, context: {cluster: cluster, user: slipway-ingress}}]
current-context: ingress
Y
  )
  admin="$RUN_DIR/caddy-admin.sock"
  printf '{"admin": {"listen": "unix/%s", "config": {"persist": false}}}\n' "$admin" > "$NODE_DIR/ingress/caddy.json"
  list_hosts
  ( umask 077; start caddy env HOME="$NODE_DIR/ingress" XDG_DATA_HOME="$NODE_DIR/ingress" XDG_CONFIG_HOME="$NODE_DIR/ingress" \
    caddy run --config "$NODE_DIR/ingress/caddy.json" )
  until_ok "Caddy" 30 curl -sf --unix-socket "$admin" -H "Host;" http://caddy/config/ || { tail -n 20 "$LOGS/caddy.log" >&2; exit 1; }
  node="$here/../../node_modules/.bin/node"; [ -x "$node" ] || node=node
  start ingress "$node" "$here/ingress/controller.ts" "$NODE_DIR/ingress/kubeconfig" "$admin" \
    "$HOST_ADDRESS:$INGRESS_PORT,127.0.0.1:$INGRESS_PORT" "$HOST_ADDRESS" "$NODE_DIR/ingress" caddy
  until_ok "the ingress controller" 60 test -f "$NODE_DIR/ingress/ready" || { tail -n 20 "$LOGS/ingress.log" >&2; exit 1; }
}

kubelet_up() {
  BIN=$(sh "$here/build.sh")
  kubeconfig=$1
  HOST_ADDRESS=$(cat "$NODE_DIR/address")
  mkdir -p "$NODE_DIR/kubelet" "$NODE_DIR/pod-logs"
  # The host's resolvers, for CoreDNS to forward to and for pods with dnsPolicy Default; a
  # loopback stub resolver is not reachable from a pod.
  resolv=/etc/resolv.conf
  if grep -q '^nameserver 127\.' "$resolv" && [ -f /run/systemd/resolve/resolv.conf ]; then resolv=/run/systemd/resolve/resolv.conf; fi
  grep -v '^#' "$resolv" > "$NODE_DIR/resolv.conf"
  dns_up "$kubeconfig"
  # Pod cgroups under /slipway in every hierarchy, so down removes only this node's.
  for h in /sys/fs/cgroup/*/; do [ -d "$h" ] && mkdir -p "$h$CGROUP_ROOT" 2>/dev/null || true; done
  cat > "$NODE_DIR/kubelet.yaml" <<Y
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# This VM mounts cgroup v1 hierarchies; kubelet >= 1.35 refuses them unless told otherwise.
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /$CGROUP_ROOT
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
clusterDNS: [$HOST_ADDRESS]
clusterDomain: cluster.local
podLogsDir: $NODE_DIR/pod-logs
serializeImagePulls: false
maxPods: 60
evictionHard: {memory.available: "100Mi", nodefs.available: "2%", imagefs.available: "2%"}
imageGCHighThresholdPercent: 99
imageGCLowThresholdPercent: 98
Y
  start kubelet "$BIN/kubelet" --config "$NODE_DIR/kubelet.yaml" --kubeconfig "$kubeconfig" \
    --root-dir "$NODE_DIR/kubelet" --cert-dir "$NODE_DIR/kubelet/pki" --hostname-override "$NODE_NAME" --node-ip "$HOST_ADDRESS" --v=1
  until_ok "the kubelet's health endpoint" 60 curl -sf http://127.0.0.1:10248/healthz ||
    { tail -n 30 "$LOGS/kubelet.log" >&2; exit 1; }
  # Service IPs and NodePorts, from pods and from the host. It leaves the conntrack sysctls alone
  # (this VM's root may not change them) and masquerades only what leaves the pod network.
  start kube-proxy "$BIN/kube-proxy" --kubeconfig "$kubeconfig" --hostname-override "$NODE_NAME" \
    --proxy-mode iptables --cluster-cidr "$POD_SUBNET" --nodeport-addresses "$HOST_ADDRESS/32" \
    --conntrack-max-per-core 0 --conntrack-tcp-timeout-established 0 --conntrack-tcp-timeout-close-wait 0 \
    --healthz-bind-address 127.0.0.1:10256 --metrics-bind-address 127.0.0.1:10249
  until_ok "kube-proxy" 60 curl -sf http://127.0.0.1:10256/livez || { tail -n 30 "$LOGS/kube-proxy.log" >&2; exit 1; }
  # NetworkPolicy: kube-router's firewall alone (no routing, no service proxy), since the bridge
  # CNI enforces none. Its chains are KUBE-* (down removes them), its ipsets are recorded.
  start kube-router "$KUBE_ROUTER_BIN/kube-router" --run-firewall=true --run-router=false --run-service-proxy=false \
    --kubeconfig "$kubeconfig" --hostname-override "$NODE_NAME" --health-port 20244 --metrics-port 0
  until_ok "kube-router's firewall" 60 curl -sf http://127.0.0.1:20244/healthz || { tail -n 30 "$LOGS/kube-router.log" >&2; exit 1; }
  ingress_up "$kubeconfig"
  # Every part is up: a cluster may be reused from now on (scripts/cluster/control-plane.ts).
  date > "$NODE_DIR/up"
}

down() {
  [ -d "$NODE_DIR" ] || [ -d "$RUN_DIR" ] || return 0
  stop ingress "$NODE_DIR/ingress/kubeconfig"
  stop caddy "$NODE_DIR/ingress/caddy.json"
  stop kube-router "--run-firewall=true"
  stop kube-proxy "--hostname-override $NODE_NAME"
  stop kubelet "$NODE_DIR/kubelet.yaml"
  stop coredns "$NODE_DIR/Corefile"
  stop s3 "$NODE_DIR/s3"
  unlist_hosts
  # Containers first (runc knows them even when containerd is gone), then their shims.
  if [ -d "$RUN_DIR/runc" ]; then
    for ns in "$RUN_DIR"/runc/*; do
      [ -d "$ns" ] || continue
      for id in $(runc --root "$ns" list -q 2>/dev/null); do runc --root "$ns" delete --force "$id" >/dev/null 2>&1 || true; done
    done
  fi
  stop containerd "$NODE_DIR/containerd.toml"
  for pid in $(pgrep -f "containerd-shim-runc-v2 .*-address $RUN_DIR/containerd.sock" || true); do kill -9 "$pid" 2>/dev/null || true; done
  stop registry-pods "$NODE_DIR/registry-pods.yml"
  stop registry "$NODE_DIR/registry.yml"
  # Mounts under our folders (overlay rootfs, volumes, shm), deepest first.
  for m in $(awk -v a="$NODE_DIR/" -v b="$RUN_DIR/" 'index($2, a) == 1 || index($2, b) == 1 {print $2}' /proc/mounts | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
  # Network namespaces of our pods: those holding an address of our pod subnet.
  for m in $(awk '$2 ~ "^/run/netns/cni-" {print $2}' /proc/mounts); do
    if ip -n "$(basename "$m")" -4 -o addr 2>/dev/null | grep -q " inet $POD_PREFIX"; then
      umount "$m" 2>/dev/null || true; rm -f "$m"
    fi
  done
  rmdir /run/netns 2>/dev/null || true
  # Network: the bridge, the lo address, CNI's masquerading for our network, the kubelet's chains.
  ip link del "$BRIDGE" 2>/dev/null || true
  [ -f "$NODE_DIR/address" ] && ip addr del "$(cat "$NODE_DIR/address")/32" dev lo 2>/dev/null || true
  for ipt in iptables ip6tables; do
    command -v "$ipt-save" >/dev/null 2>&1 || continue
    for table in filter nat mangle; do
      rules=$("$ipt-save" -t "$table" 2>/dev/null || true)
      # (iptables-save escapes the quotes of a comment: name: \"slipway-pods\")
      ours=$(echo "$rules" | grep -F "$CNI_NETWORK\\\"" | sed -n 's/.* -j \(CNI-[^ ]*\).*/\1/p' | sort -u)
      for chain in $(echo "$rules" | sed -n 's/^:\(KUBE-[^ ]*\) .*/\1/p'); do
        grep -qx "$chain" "$NODE_DIR/chains.before" 2>/dev/null || ours="$ours $chain"
      done
      # Rules jumping to those chains or naming our network, then the chains themselves.
      echo "$rules" | grep '^-A ' | while read -r rule; do
        drop=false
        case "$rule" in *"$CNI_NETWORK\\\""*) drop=true ;; esac
        for chain in $ours; do case "$rule" in *" -j $chain"|*" -j $chain "*) drop=true ;; esac; done
        $drop && eval "$ipt -t $table $(echo "$rule" | sed 's/^-A /-D /')" 2>/dev/null || true
      done
      for chain in $ours; do "$ipt" -t "$table" -F "$chain" 2>/dev/null || true; done
      for chain in $ours; do "$ipt" -t "$table" -X "$chain" 2>/dev/null || true; done
    done
  done
  # The ipsets kube-router made (after the rules that used them are gone).
  if command -v ipset >/dev/null 2>&1; then
    for set in $(ipset list -n 2>/dev/null); do
      grep -qx "$set" "$NODE_DIR/ipsets.before" 2>/dev/null && continue
      case "$set" in KUBE-*|kube-router-*) ipset destroy "$set" 2>/dev/null || true ;; esac
    done
  fi
  # Kernel settings as they were.
  if [ -f "$NODE_DIR/sysctl.before" ]; then
    while IFS= read -r setting; do sysctl -qw "$setting" 2>/dev/null || true; done < "$NODE_DIR/sysctl.before"
  fi
  # This node's cgroups, deepest first.
  for h in /sys/fs/cgroup/*/"$CGROUP_ROOT"; do
    [ -d "$h" ] && find "$h" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
  # Folders the kubelet and CNI made outside ours, and CNI's cached results of our pods.
  if [ -d /var/lib/cni/results ]; then
    for f in /var/lib/cni/results/*; do
      [ -e "$f" ] || continue
      grep -qx "$(basename "$f")" "$NODE_DIR/cni-results.before" 2>/dev/null || rm -f "$f"
    done
  fi
  find /var/log/containers -xtype l -delete 2>/dev/null || true
  for d in $HOST_PATHS; do
    grep -qx "$d" "$NODE_DIR/paths.before" 2>/dev/null && continue
    [ -f "$NODE_DIR/paths.before" ] && rm -rf --one-file-system "$d"
  done
  rm -rf --one-file-system "$RUN_DIR" "$NODE_DIR"
}

if [ "$(uname -s)" != Linux ]; then
  log "a real node needs Linux (this is $(uname -s)); use the default kwok nodes instead."
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  log "a real node needs root (it runs containerd and a kubelet and changes the network): run this as root, as CI does."
  exit 1
fi
# One real node per machine: node.sh calls wait for each other.
exec 9>/run/slipway-node.lock
flock 9
case "${1:-}" in
  host-up) down; host_up "${2:-slipway}" ;;
  kubelet-up) kubelet_up "$2" ;;
  registry-door) registry_door "$2" "$3" ;;
  down) down ;;
  *) echo "usage: node.sh host-up <cluster> | kubelet-up <kubeconfig> | registry-door <realm> <jwks> | down" >&2; exit 2 ;;
esac
