#!/bin/sh
# Makes sure Debian's chromium is installed for the browser tests of the status page (headless,
# driven by puppeteer-core). Installs it with apt-get when missing (root, Debian/Ubuntu); prints
# the browser's path. A warm machine returns at once.
set -eu
log() { printf '[browser] %s\n' "$*" >&2; }
find_browser() { command -v chromium 2>/dev/null || command -v chromium-browser 2>/dev/null || true; }
browser=${SLIPWAY_CHROMIUM:-$(find_browser)}
if [ -n "$browser" ]; then echo "$browser"; exit 0; fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  log "the status page's browser tests need Chromium: install Debian's chromium package (apt-get install chromium) or set SLIPWAY_CHROMIUM to a Chrome/Chromium binary"
  exit 1
fi
log "installing Debian's chromium for the browser tests (one time, about 1 min)"
start=$(date +%s)
out=$(mktemp)
if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core; } >"$out" 2>&1; then
  tail -n 20 "$out" >&2; rm -f "$out"; exit 1
fi
rm -f "$out"
log "chromium installed in $(( $(date +%s) - start )) s"
find_browser
