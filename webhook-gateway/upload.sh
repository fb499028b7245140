#!/bin/sh
# Slipway upload script: archives a project's base directory, uploads it, and starts a bundle
# build (and the deployments of matching webhooks). Needs only a POSIX shell, curl and tar.
#
# usage: sh upload.sh [--no-wait] <project-slug> <webhook-secret> <commit-sha> <path-to-craft-base-dir> <comment> <branch>
#
# It then follows each bundle it started (build, backup, rollout) and prints every phase, until
# the bundle ends: CI goes green only when the deploy did. Exit codes:
#   0  every bundle finished well        1  the upload was refused (or a local problem)
#   2  usage                             3  a bundle failed (the reason is printed)
#   4  network or server trouble         130 interrupted
#
# Pass - as the webhook secret to read it from the first line of standard input, which keeps it
# off the process list, e.g.  printf '%s\n' "$SLIPWAY_SECRET" | sh upload.sh demo - "$SHA" . "$MSG" main
#
# Environment:
#   SLIPWAY_EXCLUDE="node_modules ./vendor"  tar patterns to leave out besides .git (space-separated),
#                                   e.g. the dependencies the project's build steps install themselves
#   SLIPWAY_WAIT=0                  do not wait for the bundles (as --no-wait)
#   SLIPWAY_WAIT_TIMEOUT=3600       seconds to wait for the bundles before giving up (exit 4)
set -eu

base_url='__SLIPWAY_BASE_URL__'

say() { printf 'slipway: %s\n' "$*" >&2; }
fail() {
  say "$*"
  exit 1
}
trouble() {
  say "$*"
  exit 4
}

usage() {
  cat >&2 <<'USAGE'
usage: sh upload.sh [--no-wait] <project-slug> <webhook-secret> <commit-sha> <path-to-craft-base-dir> <comment> <branch>

  project-slug            the project's slug
  webhook-secret          the project's webhook secret (- reads it from standard input)
  commit-sha              the commit the files belong to
  path-to-craft-base-dir  the project base directory (contains config, web, templates, ...)
  comment                 comment for the bundle (the first line of the commit message is a good one)
  branch                  the branch of the commit; matched against the project's webhooks

Then waits for each bundle to end and prints its phases (--no-wait or SLIPWAY_WAIT=0: do not).
Exit codes: 0 done, 1 upload refused, 2 usage, 3 a bundle failed, 4 network or server trouble.
Everything but .git is uploaded; SLIPWAY_EXCLUDE="node_modules ./vendor" leaves out more.
USAGE
  exit 2
}

wait_for_bundles=${SLIPWAY_WAIT:-1}
if [ "${1:-}" = "--no-wait" ]; then
  wait_for_bundles=0
  shift
fi
[ "$#" -eq 6 ] || usage
slug=$1
secret=$2
commit=$3
base_dir=$4
comment=$5
branch=$6

for value in "$slug" "$secret" "$commit" "$base_dir" "$branch"; do
  [ -n "$value" ] || usage
done
case $slug in
  *[!a-z0-9-]*) fail "the project slug may only contain a-z, 0-9 and -: $slug" ;;
esac
if [ "$secret" = "-" ]; then
  IFS= read -r secret || [ -n "$secret" ] || fail "no webhook secret on standard input"
  # A secret saved on Windows ends in CR: it is not part of the secret (and breaks the header).
  secret=$(printf '%s' "$secret" | tr -d '\r')
  [ -n "$secret" ] || fail "no webhook secret on standard input"
fi
[ -d "$base_dir" ] || fail "the base directory does not exist: $base_dir"
command -v curl >/dev/null 2>&1 || fail "curl is required"
command -v tar >/dev/null 2>&1 || fail "tar is required"

work=$(mktemp -d 2>/dev/null || (umask 077 && mkdir "${TMPDIR:-/tmp}/slipway-upload.$$" && echo "${TMPDIR:-/tmp}/slipway-upload.$$"))
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
archive=$work/base.tar.gz
response=$work/response.json

# What never belongs in a build: version control data. Dependencies are uploaded (a build without
# build steps needs them as they are); SLIPWAY_EXCLUDE leaves out what the build steps install.
# The patterns become tar options, one argument each, never expanded by this shell.
set -f
set -- --exclude=.git
for pattern in ${SLIPWAY_EXCLUDE:-}; do set -- "$@" "--exclude=$pattern"; done
set +f

say "archiving $base_dir"
tar -czf "$archive" -C "$base_dir" "$@" . || fail "could not archive $base_dir"
size=$(wc -c <"$archive" | tr -d ' ')
say "uploading $size bytes to $base_url/uploads/$slug"

if [ -t 2 ]; then progress=--progress-bar; else progress=--silent; fi

# The secret goes to curl on standard input as a config line, never as an argument.
escaped_secret=$(printf '%s' "$secret" | sed 's/[\\"]/\\&/g')
# -q first: a ~/.curlrc on the CI image (--fail, say) must not change what the script sees.
status=$(printf 'header = "Authorization: Bearer %s"\n' "$escaped_secret" | curl -q $progress --show-error \
  --config - \
  --connect-timeout 30 \
  --retry 3 --retry-delay 5 \
  --header 'Accept: application/json' \
  --form-string "commit=$commit" \
  --form-string "branch=$branch" \
  --form-string "comment=$comment" \
  --form "archive=@$archive;type=application/gzip;filename=base.tar.gz" \
  --output "$response" \
  --write-out '%{http_code}' \
  "$base_url/uploads/$slug") || trouble "the upload to $base_url failed"

body=$(cat "$response" 2>/dev/null || true)

case $status in
  200 | 201)
    namespace=$(printf '%s\n' "$body" | sed -n 's/.*"namespace":"\([^"]*\)".*/\1/p' | head -n 1)
    names=$(printf '%s\n' "$body" | tr '{' '\n' | sed -n 's/^"name":"\([^"]*\)".*/\1/p' | tr '\n' ' ' | sed 's/ *$//')
    if [ "$status" = 201 ]; then verb=created; else verb="already exists (same commit and archive)"; fi
    : >"$work/bundles"
    printf '%s\n' "$body" | tr '{' '\n' | grep '^"name":' | while IFS= read -r line; do
      name=$(printf '%s' "$line" | sed -n 's/^"name":"\([^"]*\)".*/\1/p')
      webhook=$(printf '%s' "$line" | sed -n 's/.*"webhook":"\([^"]*\)".*/\1/p')
      environment=$(printf '%s' "$line" | sed -n 's/.*"environment":"\([^"]*\)".*/\1/p')
      url=$(printf '%s' "$line" | sed -n 's/.*"statusUrl":"\([^"]*\)".*/\1/p')
      # A bundle built before and pruned since is not built again: nothing to follow.
      case $line in *'"pruned":true'*) pruned=1 ;; *) pruned=0 ;; esac
      # What to follow below: one bundle per line, its name and its status URL.
      [ "$pruned" = 1 ] || printf '%s %s\n' "$name" "$url" >>"$work/bundles"
      if [ -n "$webhook" ] && [ -n "$environment" ]; then
        detail=" (webhook $webhook, deploys to $environment)"
      elif [ -n "$webhook" ]; then
        detail=" (webhook $webhook, no deployment)"
      else
        detail=" (no webhook matches branch $branch: build only, no deployment)"
      fi
      if [ "$pruned" = 1 ]; then
        printf 'bundle %s was built before and pruned since: not built again%s\n' "$name" "$detail"
      else
        printf 'bundle %s %s%s\n' "$name" "$verb" "$detail"
      fi
    done
    if [ "$wait_for_bundles" = "0" ]; then
      printf 'follow with: kubectl --namespace %s get bundles.slipway.dev %s --watch\n' "$namespace" "$names"
      exit 0
    fi
    ;;
  5??)
    message=$(printf '%s\n' "$body" | sed -n 's/.*"message":"\([^"]*\)".*/\1/p' | head -n 1)
    trouble "the gateway could not take the upload (HTTP $status): ${message:-$body}"
    ;;
  *)
    message=$(printf '%s\n' "$body" | sed -n 's/.*"message":"\([^"]*\)".*/\1/p' | head -n 1)
    [ -n "$message" ] || message=$body
    fail "upload refused (HTTP $status): $message"
    ;;
esac

# A JSON string field of the status answer, unescaped enough to print.
field() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" "$2" | head -n 1; }
ready_message() {
  sed -n 's/.*"ready":{"status":"[^"]*","reason":"[^"]*","message":"\(.*\)"},"steps".*/\1/p' "$1" |
    sed 's/\\"/"/g; s/\\\\/\\/g'
}

# Follows one bundle's status URL until it ends; returns 0 (done), 3 (failed) or 4 (trouble).
follow() {
  name=$1
  url=$2
  last=
  misses=0
  while :; do
    answer=$work/status.json
    code=$(curl -q --silent --connect-timeout 10 --max-time 30 --output "$answer" --write-out '%{http_code}' "$url") || code=000
    if [ "$code" = 200 ]; then
      misses=0
      phase=$(field phase "$answer")
      reason=$(sed -n 's/.*"ready":{"status":"[^"]*","reason":"\([^"]*\)".*/\1/p' "$answer")
      message=$(ready_message "$answer")
      if [ "$phase/$reason/$message" != "$last" ]; then
        last="$phase/$reason/$message"
        printf 'bundle %s: %s%s%s\n' "$name" "$phase" "${reason:+ ($reason)}" "${message:+: $message}"
      fi
      if grep -q '"finished":true' "$answer"; then
        grep -q '"succeeded":true' "$answer" && return 0
        return 3
      fi
    else
      # Not visible yet (just created), or the gateway is restarting: some patience.
      misses=$((misses + 1))
      if [ "$misses" -gt 20 ]; then
        say "cannot follow bundle $name (HTTP $code from $base_url)"
        return 4
      fi
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      say "gave up waiting for bundle $name after ${SLIPWAY_WAIT_TIMEOUT:-3600} s"
      return 4
    fi
    sleep "${SLIPWAY_WAIT_INTERVAL:-3}"
  done
}

outcome=0
# One deadline for all the bundles, followed one after the other.
deadline=$(($(date +%s) + ${SLIPWAY_WAIT_TIMEOUT:-3600}))
while read -r name url; do
  if [ -z "$url" ]; then
    # A gateway without a signing key (SLIPWAY_ARCHIVE_URL_KEY) cannot say how a bundle did.
    say "the gateway gives no status URL for bundle $name: cannot wait for it (use --no-wait)"
    outcome=4
    continue
  fi
  result=0
  follow "$name" "$url" || result=$?
  if [ "$result" -gt "$outcome" ]; then outcome=$result; fi
done <"$work/bundles"
case $outcome in
  0) say "done" ;;
  3) say "a bundle failed" ;;
esac
exit "$outcome"
