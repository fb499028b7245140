#!/bin/sh
# Builds glua, the Lua 5.1 interpreter of gopher-lua (the one Argo CD runs health checks with),
# from the Go module proxy into a cache folder outside the git clone, keyed by version, and
# prints the path of the binary. A warm cache returns at once.
#   scripts/lua/build.sh                                   # the pinned version below
#   SLIPWAY_GOPHER_LUA_VERSION=v1.1.2 scripts/lua/build.sh
set -eu

VERSION="${SLIPWAY_GOPHER_LUA_VERSION:-v1.1.1}"
CACHE_ROOT="${SLIPWAY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slipway}"
DIR="$CACHE_ROOT/glua/$VERSION"
GLUA="$DIR/glua"

log() { printf '[lua:build] %s\n' "$*" >&2; }

if [ -x "$GLUA" ]; then
  echo "$GLUA"
  exit 0
fi

. "$(dirname "$0")/../require-go.sh"
require_go "glua $VERSION"

export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-buildvcs=false
start=$(date +%s)
log "building glua (gopher-lua $VERSION) into $DIR (one time)"
mkdir -p "$DIR"
tmp="$DIR/tmp.$$"
trap 'rm -rf "$tmp"' EXIT
# Module downloads go to a log, shown only if the install fails: progress lines only.
GOBIN="$tmp" go install -trimpath -ldflags "-s -w" "github.com/yuin/gopher-lua/cmd/glua@$VERSION" >"$DIR/install.log" 2>&1 \
  || { cat "$DIR/install.log" >&2; exit 1; }
mv "$tmp/glua" "$GLUA"
log "[$(( $(date +%s) - start ))s] done"
echo "$GLUA"
