#!/bin/sh
# Prints the path of promtool (Prometheus' rule checker) for the alert tests, taken from Debian's
# prometheus package without installing it (no service, no system files): the .deb is unpacked
# into a cache folder outside the clone, keyed by the package version. A warm cache returns at once.
#   scripts/prometheus/promtool.sh
set -eu
log() { printf '[promtool] %s\n' "$*" >&2; }
CACHE_ROOT="${SLIPWAY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slipway}"
if ! command -v apt-get >/dev/null 2>&1; then
  log "promtool comes from Debian's prometheus package here: on another system install Prometheus' promtool and put it on PATH"
  command -v promtool || exit 1
  exit 0
fi
version() { apt-cache policy prometheus 2>/dev/null | sed -n 's/^ *Candidate: *//p'; }
v=$(version)
if [ -z "$v" ] || [ "$v" = "(none)" ]; then
  apt-get update -q >/dev/null 2>&1 || true
  v=$(version)
fi
if [ -z "$v" ] || [ "$v" = "(none)" ]; then
  log "Debian's prometheus package is not available from apt (apt-get update, then try again)"
  exit 1
fi
DIR="$CACHE_ROOT/promtool/$v"
if [ -x "$DIR/promtool" ]; then echo "$DIR/promtool"; exit 0; fi
log "unpacking promtool from Debian's prometheus $v (one time)"
start=$(date +%s)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# apt-get download writes into the current folder, as the _apt user when it can: a folder it may write.
chmod 777 "$tmp"
(cd "$tmp" && apt-get download -q "prometheus=$v" >"$tmp/download.log" 2>&1) || { cat "$tmp/download.log" >&2; exit 1; }
dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/x"
mkdir -p "$DIR"
mv "$tmp/x/usr/bin/promtool" "$DIR/promtool"
log "[$(( $(date +%s) - start ))s] done: $("$DIR/promtool" --version 2>&1 | head -n 1)"
echo "$DIR/promtool"
