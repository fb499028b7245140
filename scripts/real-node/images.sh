#!/bin/sh
# Builds the images a real node runs, from Debian packages and the Go-built binaries (nothing is
# pulled from a registry), and caches each as a tarball in $NODE_IMAGES (versions.sh):
#   pause       the pod sandbox (pause.c from the kubernetes module, linked statically)
#   static-web  busybox httpd serving /app/web on port 8080: a base software image for bundles
#   php         PHP's built-in server serving /app/web on port 8080 (php-cli, mysql and pgsql)
#   composer    php-cli with Composer: a builder image for bundles' build steps (composer install)
#   node        Node.js with npm: a builder image for bundles' build steps (npm ci, npm run build)
#   tools       Debian minbase with git, wget, mariadb-client and postgresql-client: the build
#               Job's fetch step and the MariaDB/MySQL and PostgreSQL backup Jobs
#   buildkit    tools + rootless BuildKit (buildkitd, buildctl, rootlesskit) for build Jobs
#   push        tools + crane: the build Job's push container (pushes the built OCI layout)
#   slipway-base  Debian minbase with the slipway user (uid/gid 10001): the base of Slipway's
#               own image (scripts/image/build.ts adds Node and the app, as the Dockerfile does)
# A warm cache returns at once. Prints the images folder. Needs root (debootstrap, chroot).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/versions.sh"
IMAGES="pause static-web php composer node tools buildkit push slipway-base"
log() { printf '[real-node:images] %s\n' "$*" >&2; }
start=$(date +%s)
step() { log "[$(( $(date +%s) - start ))s] $*"; }

complete() {
  for i in $IMAGES; do [ -f "$NODE_IMAGES/$i.tar" ] || return 1; done
}
if complete; then echo "$NODE_IMAGES"; exit 0; fi

BIN=$(sh "$here/build.sh")
work="$NODE_IMAGES.work"
REG=127.0.0.1:25099
crane() { "$BIN/crane" "$@" >>"$work/crane.log" 2>&1 || { tail -n 20 "$work/crane.log" >&2; return 1; }; }
# Unmounts what a chroot build mounted (also one killed halfway, of any revision): nothing may be
# deleted through a bind mount of the host's /dev.
unmount_builds() {
  for m in $(awk -v w="$NODE_CACHE/" 'index($2, w) == 1 {print $2}' /proc/mounts | sort -r); do umount "$m" 2>/dev/null || umount -l "$m"; done
}
cleanup() {
  unmount_builds
  [ -f "$work/registry.pid" ] && kill "$(cat "$work/registry.pid")" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cleanup
rm -rf --one-file-system "$work"; mkdir -p "$work" "$NODE_IMAGES"
log "building the node's images into $NODE_IMAGES (one time, about 5 min; later runs reuse them)"

# A scratch registry on loopback to assemble the images in; each is saved as a tarball.
cat > "$work/registry.yml" <<Y
version: 0.1
log: {level: error}
storage: {filesystem: {rootdirectory: $work/registry}}
http: {addr: $REG}
Y
"$BIN/registry" serve "$work/registry.yml" >"$work/registry.log" 2>&1 &
echo $! > "$work/registry.pid"
i=0; until curl -sf "http://$REG/v2/" >/dev/null; do i=$((i + 1)); [ $i -lt 100 ] || { cat "$work/registry.log" >&2; exit 1; }; sleep 0.1; done

# layer <name> <dir>: a layer tarball of a folder, numeric owners, file capabilities kept.
layer() { tar --numeric-owner --xattrs --xattrs-include='security.capability' -C "$2" -cf "$work/$1.tar" .; }
image() { echo "$REG/slipway/$1:$IMAGES_REVISION"; }

step "pause"
mkdir -p "$work/pause"
. "$here/../require-go.sh"
require_go "the pod sandbox image"
kube_dir=$(cd "$NODE_CACHE/work/kubernetes" && go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
pause_c="$kube_dir/build/pause/linux/pause.c"
[ -f "$pause_c" ] || { log "pause.c not found in k8s.io/kubernetes@$K8S_VERSION ($pause_c)"; exit 1; }
gcc -Os -static -Wall -DVERSION="$K8S_VERSION-slipway" -o "$work/pause/pause" "$pause_c"
strip "$work/pause/pause"
layer pause "$work/pause"
crane append --oci-empty-base -f "$work/pause.tar" -t "$(image pause)"
crane mutate --set-platform linux/amd64 --entrypoint /pause -t "$(image pause)" "$(image pause)"

step "static-web (busybox httpd)"
bb="$work/busybox"
mkdir -p "$bb/bin" "$bb/etc" "$bb/tmp" "$bb/app/web"
cp /bin/busybox "$bb/bin/busybox"
for a in $("$bb/bin/busybox" --list); do [ "$a" = busybox ] || ln -sf busybox "$bb/bin/$a"; done
printf 'root:x:0:0:root:/root:/bin/sh\nuser:x:1000:1000:user:/app:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' > "$bb/etc/passwd"
printf 'root:x:0:\nuser:x:1000:\nnogroup:x:65534:\n' > "$bb/etc/group"
chmod 1777 "$bb/tmp"
layer busybox "$bb"
crane append --oci-empty-base -f "$work/busybox.tar" -t "$(image static-web)"
# The server runs under a shell that exits on SIGTERM: a server that is PID 1 gets no default
# signal handling, so it would ignore SIGTERM and every old pod of a rollout would linger for
# its whole grace period. (crane splits --cmd on commas: the commands hold none.)
serve() { echo "trap 'exit 0' TERM INT; $1 & wait"; }
crane mutate --set-platform linux/amd64 --env PATH=/bin --workdir /app --user 65534:65534 --exposed-ports 8080/tcp \
  --cmd "/bin/sh,-c,$(serve 'httpd -f -v -p 8080 -h /app/web')" -t "$(image static-web)" "$(image static-web)"

step "Debian $DEBIAN_SUITE minbase (debootstrap, about 2 min)"
rootfs="$work/$DEBIAN_SUITE"
debootstrap --variant=minbase "$DEBIAN_SUITE" "$rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
  { tail -n 20 "$work/debootstrap.log" >&2; exit 1; }

# debian <name> <packages> [setup command]: a copy of the minbase rootfs with packages installed.
debian() {
  d="$work/$1"; rm -rf "$d"; cp -a "$rootfs" "$d"
  cp /etc/resolv.conf "$d/etc/resolv.conf"
  mount -t proc proc "$d/proc"; mount --bind /dev "$d/dev"
  printf '#!/bin/sh\nexit 101\n' > "$d/usr/sbin/policy-rc.d"; chmod +x "$d/usr/sbin/policy-rc.d"
  chroot "$d" sh -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $2 && apt-get clean && rm -rf /var/lib/apt/lists/* /usr/share/doc/* /usr/share/man/* ${3:+&& $3}" \
    >"$work/$1.log" 2>&1 || { umount "$d/dev" "$d/proc"; tail -n 20 "$work/$1.log" >&2; exit 1; }
  umount "$d/dev" "$d/proc"
  rm -f "$d/usr/sbin/policy-rc.d"; : > "$d/etc/resolv.conf"
  layer "$1" "$d"
}

step "tools (git, wget, mariadb-client, postgresql-client)"
debian tools "git ca-certificates wget openssh-client mariadb-client postgresql-client runc uidmap" \
  "useradd -u 1000 -U -m -s /bin/sh user && echo user:100000:65536 > /etc/subuid && echo user:100000:65536 > /etc/subgid && mkdir -p /run/user/1000 /home/user/.local/tmp /home/user/.local/share/buildkit && chown -R user:user /run/user/1000 /home/user"
crane append --oci-empty-base -f "$work/tools.tar" -t "$(image tools)"
crane mutate --set-platform linux/amd64 --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --cmd /bin/sh -t "$(image tools)" "$(image tools)"

step "php (php-cli with mysql and pgsql)"
debian php "php-cli php-mysql php-pgsql" "mkdir -p /app/web"
crane append --oci-empty-base -f "$work/php.tar" -t "$(image php)"
crane mutate --set-platform linux/amd64 --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --workdir /app --user 65534:65534 --exposed-ports 8080/tcp --cmd "/bin/sh,-c,$(serve 'php -S 0.0.0.0:8080 -t /app/web')" \
  -t "$(image php)" "$(image php)"

step "composer (php-cli with Composer, a builder image)"
debian composer "php-cli composer unzip ca-certificates"
crane append --oci-empty-base -f "$work/composer.tar" -t "$(image composer)"
crane mutate --set-platform linux/amd64 --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env COMPOSER_ALLOW_SUPERUSER=1 --workdir /app --cmd composer -t "$(image composer)" "$(image composer)"

step "node (Node.js with npm, a builder image)"
debian node "nodejs npm ca-certificates"
crane append --oci-empty-base -f "$work/node.tar" -t "$(image node)"
crane mutate --set-platform linux/amd64 --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --workdir /app --cmd node -t "$(image node)" "$(image node)"

step "slipway-base (minbase and the slipway user, for Slipway's own image)"
debian slipway-base "ca-certificates" \
  "groupadd --gid 10001 slipway && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin slipway"
crane append --oci-empty-base -f "$work/slipway-base.tar" -t "$(image slipway-base)"
crane mutate --set-platform linux/amd64 --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  -t "$(image slipway-base)" "$(image slipway-base)"

step "buildkit (rootless)"
bk="$work/buildkit"; mkdir -p "$bk/usr/local/bin" "$bk/usr/bin"
cp "$BIN/buildkitd" "$BIN/buildctl" "$BIN/rootlesskit" "$bk/usr/local/bin/"
bk_dir=$(cd "$NODE_CACHE/work/buildkit" && go mod download -json "github.com/moby/buildkit@$BUILDKIT_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
[ -f "$bk_dir/examples/buildctl-daemonless/buildctl-daemonless.sh" ] || { log "buildctl-daemonless.sh not found in BuildKit $BUILDKIT_VERSION"; exit 1; }
cp "$bk_dir/examples/buildctl-daemonless/buildctl-daemonless.sh" "$bk/usr/local/bin/"
chmod 755 "$bk/usr/local/bin/"*
# Debian's setuid newuidmap fails in an unprivileged pod ("newuidmap: write to uid_map failed:
# Operation not permitted"); file capabilities instead of setuid work there.
cp "$work/tools/usr/bin/newuidmap" "$work/tools/usr/bin/newgidmap" "$bk/usr/bin/"
chmod 0755 "$bk/usr/bin/newuidmap" "$bk/usr/bin/newgidmap"
setcap cap_setuid=ep "$bk/usr/bin/newuidmap"; setcap cap_setgid=ep "$bk/usr/bin/newgidmap"
layer buildkit "$bk"
crane append -b "$(image tools)" -f "$work/buildkit.tar" -t "$(image buildkit)"
crane mutate --user 1000:1000 --workdir /home/user -e HOME=/home/user -e USER=user -e XDG_RUNTIME_DIR=/run/user/1000 \
  -e TMPDIR=/home/user/.local/tmp -e BUILDKIT_HOST=unix:///run/user/1000/buildkit/buildkitd.sock \
  --entrypoint rootlesskit,buildkitd -t "$(image buildkit)" "$(image buildkit)"

step "push (tools + crane)"
mkdir -p "$work/push/usr/local/bin"
cp "$BIN/crane" "$work/push/usr/local/bin/crane"; chmod 755 "$work/push/usr/local/bin/crane"
layer push "$work/push"
crane append -b "$(image tools)" -f "$work/push.tar" -t "$(image push)"

for i in $IMAGES; do
  crane pull "$(image "$i")" "$NODE_IMAGES/$i.tar.tmp"
  mv "$NODE_IMAGES/$i.tar.tmp" "$NODE_IMAGES/$i.tar"
done
cleanup; trap - EXIT
rm -rf --one-file-system "$work"
# Images of earlier recipe revisions are not used again (their build folders are unmounted above).
for d in "$NODE_CACHE"/images-*; do [ "$d" = "$NODE_IMAGES" ] || rm -rf --one-file-system "$d"; done
step "done ($(du -sh "$NODE_IMAGES" | cut -f1))"
echo "$NODE_IMAGES"
