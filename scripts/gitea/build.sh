#!/bin/sh
# Builds Gitea (a real git server: repositories over HTTP, push webhooks, the commit status API)
# from the Go module proxy into a cache folder outside the clone, keyed by its version, and
# prints that folder: the `gitea` binary and the `options/` it reads translations from (built
# without bindata). A warm cache returns at once. Used by the tests that push to a real Gitea.
set -eu
GITEA_VERSION="${SLIPWAY_GITEA_VERSION:-v1.26.0}"
CACHE_ROOT="${SLIPWAY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slipway}"
DIR="$CACHE_ROOT/gitea/$GITEA_VERSION"
log() { printf '[gitea:build] %s\n' "$*" >&2; }

if [ -x "$DIR/gitea" ] && [ -d "$DIR/options/locale" ]; then echo "$DIR"; exit 0; fi

. "$(dirname "$0")/../require-go.sh"
require_go "Gitea $GITEA_VERSION"
export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false
start=$(date +%s)
step() { log "[$(( $(date +%s) - start ))s] $*"; }
work="$DIR.work"
rm -rf "$work"; mkdir -p "$work"
log "building Gitea $GITEA_VERSION into $DIR (one time, about 3 min; later runs reuse it)"
step "downloading code.gitea.io/gitea@$GITEA_VERSION"
src=$(cd "$work" && go mod download -json "code.gitea.io/gitea@$GITEA_VERSION" 2>"$work/download.log" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p') || true
[ -n "$src" ] && [ -d "$src" ] || { cat "$work/download.log" >&2; log "could not download Gitea $GITEA_VERSION"; exit 1; }
# The module cache is read-only: build in a copy.
cp -r "$src" "$work/src"; chmod -R u+w "$work/src"
step "compiling (sqlite)"
(cd "$work/src" && go build -tags "sqlite sqlite_unlock_notify" -ldflags "-s -w" -o "$work/gitea" .) >"$work/build.log" 2>&1 ||
  { tail -n 30 "$work/build.log" >&2; exit 1; }
mkdir -p "$DIR"
rm -rf "$DIR/options"; cp -r "$work/src/options" "$DIR/options"
mv "$work/gitea" "$DIR/gitea"
rm -rf "$work"
step "done"
echo "$DIR"
