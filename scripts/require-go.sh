# Sourced by the build scripts: stop with one clear sentence unless Go >= 1.26 is installed.
# Usage: require_go "what needs it"
require_go() {
  if ! command -v go >/dev/null 2>&1; then
    log "Go is not installed: install Go 1.26 or newer (https://go.dev/doc/install, or 'apt-get install golang-1.26') and run this again."
    exit 1
  fi
  go_minor=$(go env GOVERSION | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
  if [ -z "$go_minor" ] || [ "$go_minor" -lt 26 ]; then
    log "Go $(go env GOVERSION) is too old: $1 needs Go 1.26 or newer."
    exit 1
  fi
}
