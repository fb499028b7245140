#!/bin/sh
# Makes sure Debian's wrk is installed, the second load generator of `npm run bench` (beside the
# bench's own Node client). Installs it with apt-get when missing (root, Debian/Ubuntu); prints
# its path. A warm machine returns at once.
set -eu
log() { printf '[bench] %s\n' "$*" >&2; }
wrk=${SLIPWAY_WRK:-$(command -v wrk 2>/dev/null || true)}
if [ -n "$wrk" ]; then echo "$wrk"; exit 0; fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  log "the status bench also loads with wrk: install Debian's wrk package (apt-get install wrk) or set SLIPWAY_WRK"
  exit 1
fi
log "installing Debian's wrk (one time)"
out=$(mktemp)
if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends wrk; } >"$out" 2>&1; then
  tail -n 20 "$out" >&2; rm -f "$out"; exit 1
fi
rm -f "$out"
command -v wrk
