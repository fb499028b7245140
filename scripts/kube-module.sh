# Sourced by the build scripts: builds Kubernetes commands from the Go module proxy.
# k8s.io/kubernetes pins its staging modules at v0.0.0 with local replaces, so a wrapper module
# replaces each of them with the published v0.<minor>.<patch> tag. Every caller builds with the
# same flags, so the Go build cache is shared (kubelet after kube-apiserver costs about a minute).
# Usage: build_kube_commands <work dir> <version> <bin dir> <command>...
build_kube_commands() {
  kdir="$1"; kversion="$2"; kbin="$3"; shift 3
  mkdir -p "$kdir" "$kbin"
  (
    cd "$kdir"
    [ -f go.mod ] || go mod init slipway.local/kube-build >/dev/null 2>&1
    gomod=$(go mod download -json "k8s.io/kubernetes@$kversion" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
    staging="v0.${kversion#v1.}"
    for m in $(sed -n 's/^[[:space:]]*\(k8s\.io\/[a-z0-9-]*\) v0\.0\.0$/\1/p' "$gomod" | sort -u); do
      go mod edit "-replace=$m=$m@$staging"
    done
    go mod edit "-require=k8s.io/kubernetes@$kversion"
    pkgs=""
    for c in "$@"; do pkgs="$pkgs k8s.io/kubernetes/cmd/$c@$kversion"; done
    # shellcheck disable=SC2086
    go get $pkgs >get.log 2>&1 || { cat get.log >&2; exit 1; }
    minor=$(echo "$kversion" | cut -d. -f2)
    ld="-s -w"
    for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
      ld="$ld -X $p.gitVersion=$kversion -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
    done
    for c in "$@"; do
      [ -x "$kbin/$c" ] && continue
      step "building $c $kversion (first time: several minutes each on 2 cores)"
      CGO_ENABLED=0 go build -trimpath -tags=selinux,notest -ldflags "$ld" -o "$kbin/$c.tmp" "k8s.io/kubernetes/cmd/$c"
      mv "$kbin/$c.tmp" "$kbin/$c"
    done
  )
}
