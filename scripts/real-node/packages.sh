#!/bin/sh
# Installs the Debian packages a real node needs, when any is missing: runc and the CNI plugins
# (the node), iptables/conntrack (the kubelet and the CNI bridge), util-linux (flock), busybox-static, gcc and
# debootstrap (the images), uidmap and libcap2-bin (rootless BuildKit), caddy (the ingress
# controller's proxy), ipset (kube-router's NetworkPolicy firewall), MariaDB, PostgreSQL and git
# (the e2e tier serves a repository and two databases from this machine).
set -eu
log() { printf '[real-node:packages] %s\n' "$*" >&2; }
PACKAGES="runc containernetworking-plugins iptables conntrack iproute2 kmod psmisc util-linux curl ca-certificates
  busybox-static gcc libc6-dev debootstrap uidmap libcap2-bin caddy git ipset
  mariadb-server mariadb-client postgresql postgresql-client"

if [ "$(uname -s)" != Linux ]; then
  log "a real node needs Linux (this is $(uname -s)); use the default kwok nodes instead."
  exit 1
fi
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
  log "a real node needs root (it runs containerd and a kubelet and changes the network); missing packages:$missing"
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  log "a real node is set up with apt-get (Debian or Ubuntu); install by hand:$missing"
  exit 1
fi
log "installing Debian packages:$missing"
logfile=$(mktemp)
policy=""
[ -e /usr/sbin/policy-rc.d ] || policy=/usr/sbin/policy-rc.d
# Whatever happens (an error, Ctrl-C, a CI time-out's SIGTERM), the policy that stops services
# from starting must not outlive this script.
cleanup() { [ -z "$policy" ] || rm -f "$policy"; rm -f "$logfile"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
{
  apt-get update -q &&
  # The database servers are started by the e2e tier on their own ports, not as services.
  { [ -z "$policy" ] || { printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy"; }; } &&
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
} >"$logfile" 2>&1 || { status=$?; tail -n 40 "$logfile" >&2; exit $status; }
# Debian enables caddy.service; the real node runs its own Caddy on port 80 (node.sh).
case " $missing " in *" caddy "*) command -v systemctl >/dev/null 2>&1 && systemctl disable caddy >/dev/null 2>&1 || true ;; esac
log "packages installed"
