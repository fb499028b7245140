// The shell scripts of the build Job's containers (jobs.ts). User-controlled values reach them
// only as environment variables or argv, never spliced into their text.
import { INSTALL_STAGE } from './dockerfile.ts';

/**
 * Names a missing file of the install phase (INSTALL_FILES, one per line, relative to SRC), so
 * the fetch step fails with the field's name rather than BuildKit with a cache key error.
 */
export const INSTALL_FILES_CHECK = `printf '%s\\n' "\${INSTALL_FILES:-}" | while IFS= read -r file; do
  if [ -n "$file" ] && [ ! -e "\${SRC:-/workspace/src}/$file" ]; then
    echo "spec.buildSteps.install.files: $file is not in the source" >&2; exit 1
  fi
done`;

/**
 * Whether the build uses its store on the node (BUILD_STORE, build-store.ts): when it can open
 * the store's lock for writing, the filesystem has BUILD_STORE_KEEP_MB free, and it holds the
 * lock (flock on fd 9, which the script alone keeps open until it exits), BuildKit gets the store
 * as its root, with its own collection keeping it under BUILD_STORE_KEEP_MB (that collection
 * runs a second after BuildKit starts, in every build, even one that fails). Otherwise it says
 * why and builds from the pod's empty store. `command exec`: a redirection that fails must not
 * end the script.
 */
export const BUILD_STORE_CHOICE = `if [ -n "\${BUILD_STORE:-}" ]; then
  free=$(df -Pm "$BUILD_STORE" 2>/dev/null | awk 'NR == 2 { print $4 }')
  if ! command -v flock >/dev/null 2>&1; then
    echo "the builder image has no flock: building from an empty store"
  elif ! { command exec 9>>"$BUILD_STORE/lock"; } 2>/dev/null; then
    echo "this node's store is not writable by the build: building from an empty one"
  elif [ -n "$free" ] && [ "$free" -lt "$BUILD_STORE_KEEP_MB" ]; then
    echo "this node's store has $free MB free, less than the $BUILD_STORE_KEEP_MB MB it may keep: building from an empty one"
  elif flock -n 9; then
    BUILDKITD_FLAGS="\${BUILDKITD_FLAGS:-} --root=$BUILD_STORE/buildkit --oci-worker-gc-keepstorage=0,0,$BUILD_STORE_KEEP_MB"
    export BUILDKITD_FLAGS
    echo "building in this node's store of the project's environment (kept under $BUILD_STORE_KEEP_MB MB)"
  else
    echo "another build of the project's environment holds this node's store: building from an empty one"
  fi
fi`;

/**
 * Runs buildctl (argv: the build's own options) and passes its output on. With an install phase
 * (CACHE_FROM and CACHE_TO set) it runs it twice in the same BuildKit state: the image, importing
 * the project's cache, then the install stage alone (cached by then), exporting the new cache —
 * so the cache holds the install's layers, never the rest of the source or what the build steps
 * made. The image's pass adds a line where BuildKit reused a step of the install stage: a RUN
 * ("#N [install i/n] RUN …") that ran printed "+ <command>" first ("#N 0.05 + …"); one that
 * reaches "#N CACHED" or "#N DONE" without it came from the cache (a cached step whose
 * layers are fetched shows their download and "DONE", not always "CACHED"). Stops with
 * buildctl's status at the first pass that fails. First it chooses the store (BUILD_STORE_CHOICE).
 */
export const BUILD_SCRIPT = `status="\${TMPDIR:-/tmp}/buildctl-status"
pass='{ print; fflush() }'
tell='{ print; fflush() }
$2 == "[${INSTALL_STAGE}" && $4 == "RUN" && !($1 in step) { step[$1] = "waiting" }
($1 in step) && step[$1] == "waiting" && $3 == "+" { step[$1] = "ran" }
($1 in step) && step[$1] == "waiting" && ($2 == "CACHED" || $2 == "DONE") { step[$1] = "told"; print $1 " install cached: its files, commands, variables and image are those of an earlier build"; fflush() }'
# buildctl <awk program> <options…>: buildctl's output through the program; exits when it fails.
buildctl() {
  program=$1; shift
  { buildctl-daemonless.sh "$@" 9>&- 2>&1; echo $? > "$status"; } | awk "$program"
  code=$(cat "$status"); [ "$code" = 0 ] || exit "$code"
}
${BUILD_STORE_CHOICE}
if [ -n "\${CACHE_TO:-}" ]; then
  echo "building the image, with the install stage's cache \${CACHE_FROM#*ref=}"
  buildctl "$tell" "$@" --import-cache "$CACHE_FROM" --output "$BUILD_OUTPUT"
  echo "exporting the install stage's cache"
  buildctl "$pass" "$@" --opt target=${INSTALL_STAGE} --import-cache "$CACHE_FROM" --export-cache "$CACHE_TO"
else
  buildctl "$pass" "$@" --output "$BUILD_OUTPUT"
fi
`;

/** Fetches the source into /workspace/src and writes /workspace/dockerfile/Dockerfile. */
export const FETCH_SCRIPT = `set -eu
mkdir -p /workspace/src /workspace/dockerfile /workspace/home
export HOME=/workspace/home
# The repository key and git settings stay out of the build container (build steps run there).
trap 'rm -rf /workspace/home' EXIT
printf '%s' "$DOCKERFILE" > /workspace/dockerfile/Dockerfile
if [ -n "\${BUILDKITD_CONFIG:-}" ]; then printf '%s' "$BUILDKITD_CONFIG" > /workspace/buildkitd.toml; fi
if [ -n "\${ARCHIVE_URL:-}" ]; then
  echo "downloading the source archive"
  wget -q -O /workspace/source.tar.gz "$ARCHIVE_URL"
  size=$(wc -c < /workspace/source.tar.gz | tr -d ' ')
  if [ "$size" != "$ARCHIVE_SIZE" ]; then echo "archive has $size bytes, expected $ARCHIVE_SIZE" >&2; exit 1; fi
  sum=$(sha256sum /workspace/source.tar.gz | cut -d' ' -f1)
  if [ "$sum" != "$ARCHIVE_SHA256" ]; then echo "archive sha256 is $sum, expected $ARCHIVE_SHA256" >&2; exit 1; fi
  tar -xzf /workspace/source.tar.gz -C /workspace/src
  rm -f /workspace/source.tar.gz
else
  # The URL as shown in messages, without credentials someone put into it (https://user:token@…).
  shown=$(printf '%s' "$GIT_URL" | sed 's#//[^/@]*@#//#')
  if [ -f /credentials/ssh-privatekey ]; then
    # Only the host keys the Secret names: never whoever answers first.
    [ -s /credentials/known_hosts ] || { echo "the credentials Secret has an ssh-privatekey but no known_hosts: add the server's host keys" >&2; exit 1; }
    cp /credentials/ssh-privatekey "$HOME/id" && chmod 600 "$HOME/id"
    export GIT_SSH_COMMAND="ssh -i $HOME/id -o StrictHostKeyChecking=yes -o UserKnownHostsFile=/credentials/known_hosts"
  elif [ -f /credentials/password ]; then
    # The password goes only to the repository's own host, and only over https.
    case "$GIT_URL" in https://*) ;; *) echo "$shown is not https://: the password is sent only over https" >&2; exit 1;; esac
    host=$(printf '%s' "$shown" | sed -E 's#^https://([^/?]+).*#\\1#')
    git config --global "credential.https://$host.helper" '!f() { echo "username=$(cat /credentials/username 2>/dev/null || echo git)"; echo "password=$(cat /credentials/password)"; }; f'
  fi
  cd /workspace/src
  git init -q
  git remote add origin "$GIT_URL"
  echo "fetching commit $GIT_COMMIT"
  if git fetch -q --depth 1 origin "$GIT_COMMIT" 2>/dev/null; then
    git checkout -q --detach FETCH_HEAD
  else
    # Servers that refuse fetching by commit id: fetch the ref a pull request's head is published
    # under (it has a fork's commits) and the branches, then look for it.
    if [ -n "\${GIT_FETCH_REF:-}" ]; then
      git fetch -q origin "+$GIT_FETCH_REF:refs/remotes/origin/pull-request" 2>/dev/null || echo "no $GIT_FETCH_REF on the server: looking in its branches"
    fi
    git fetch -q origin '+refs/heads/*:refs/remotes/origin/*'
    git checkout -q --detach "$GIT_COMMIT" 2>/dev/null || { echo "commit $GIT_COMMIT is not in the repository $shown" >&2; exit 1; }
  fi
  case "$(git rev-parse HEAD)" in "$GIT_COMMIT"*) ;; *) echo "checked out $(git rev-parse HEAD), not $GIT_COMMIT" >&2; exit 1;; esac
  rm -rf .git
fi
${INSTALL_FILES_CHECK}
echo "source ready"
`;
