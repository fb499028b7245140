// The build Job of a bundle, as a plain manifest (pure; the controller creates it). The backup
// Job is backup-job.ts.
//
// Build Job: an init container fetches the source into an emptyDir (git clone of the commit with
// the project's credentials, or the archive download checked against its size and sha256) and
// writes a Dockerfile; a second init container runs rootless BuildKit in daemonless mode (and so
// the build steps, the user's code) and writes the image as an OCI layout into another emptyDir;
// then the push container, which runs no user code, is the only one holding the registry's push
// credentials: it pushes the layout and leaves the pushed digest as its termination message (how
// Tekton returns results), which the operator reads into the bundle's image reference.
// User-controlled values reach the scripts only as environment variables, never spliced into
// shell text.
import type {
  V1Container,
  V1EnvVar,
  V1Job,
  V1OwnerReference,
  V1ResourceRequirements,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';
import { API_VERSION, type BundleObject, type ProjectObject } from '../../crds/index.ts';
import { ANNOTATION_BUNDLE } from '../../crds/labels.ts';
import { buildCacheImage, buildJobName, jobLabels } from '../names.ts';
import { sourcePath } from './settings.ts';

export interface BuildJobSettings {
  registry: string;
  fetchImage: string;
  builderImage: string;
  pushImage: string;
  registryInsecure: boolean;
  registryPushSecret: string | undefined;
  registryPullSecret: string | undefined;
  appRoot: string;
  buildTimeoutSeconds: number;
  jobNodeSelector: Record<string, string> | undefined;
  buildResources: V1ResourceRequirements;
}

const BUILD_UID = 1000;

/** Where the build leaves the image (an OCI layout) for the push container. */
const IMAGE_LAYOUT = '/image/layout';
/** Where the build leaves the project's build cache (an OCI layout) for the push-cache container. */
const CACHE_LAYOUT = '/image/cache';

/** The push container's name: its termination message is the pushed reference with digest. */
export const PUSH_CONTAINER = 'push';
/** The init container that pushes the project's build cache (builds with an install phase). */
export const PUSH_CACHE_CONTAINER = 'push-cache';

export function ownerReference(bundle: BundleObject): V1OwnerReference {
  return {
    apiVersion: API_VERSION,
    kind: 'Bundle',
    name: bundle.metadata.name,
    uid: bundle.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Where the build steps run inside their builder image: a copy of the source tree. */
export const BUILD_STEPS_DIR = '/src';

/** The build-arg that carries build step `index` (0-based) to its RUN line. */
export const buildStepArg = (index: number): string => `SLIPWAY_STEP_${index + 1}`;
/** The Dockerfile stage of the install phase (spec.buildSteps.install). */
const INSTALL_STAGE = 'install';

/** The build-arg that carries install command `index` (0-based) to its RUN line. */
export const installStepArg = (index: number): string => `SLIPWAY_INSTALL_${index + 1}`;

/** The lines that declare a step's build-arg and run it, echoing the command first. */
const runLines = (arg: string): string[] => [
  `ARG ${arg}`,
  `RUN ${JSON.stringify(['/bin/sh', '-c', `printf '+ %s\\n' "$${arg}"; exec /bin/sh -c "$${arg}"`])}`,
];

/**
 * The Dockerfile: with build steps, a first stage runs them in the builder image over a copy of
 * the source; then the base software, and each mapped directory (from the source, or from what
 * the steps left) under the app root. The user's commands and variables are not in this text:
 * they reach the RUN lines as build-args (buildArgs), so neither the Dockerfile parser nor our
 * shell ever reads them; every path in it was checked by buildSettingsProblem.
 */
export function dockerfile(bundle: BundleObject, appRoot: string): string {
  const { buildSteps, baseSoftware, directoryMap } = bundle.spec;
  const lines: string[] = [];
  if (buildSteps) {
    const variables = Object.keys(buildSteps.env ?? {})
      .sort()
      .map((name) => `ARG ${name}`);
    const { install } = buildSteps;
    // The install stage sees only its files, so its layers are reused (from the imported cache)
    // while they, its commands, the variables and the image stay the same. Its own stage name
    // marks its steps in BuildKit's output (BUILD_SCRIPT reads it there).
    if (install) {
      lines.push(
        `FROM ${buildSteps.image} AS ${INSTALL_STAGE}`,
        'USER 0',
        `WORKDIR ${BUILD_STEPS_DIR}`,
        ...variables,
      );
      for (const file of install.files.map(sourcePath))
        lines.push(`COPY ${JSON.stringify([file, `${BUILD_STEPS_DIR}/${file}`])}`);
      install.commands.forEach((_, index) => lines.push(...runLines(installStepArg(index))));
    }
    if (install && !buildSteps.commands?.length) {
      // Nothing runs after the install: the tree it left plus the source is all directoryMap
      // reads, so this stage needs no builder image, and a cached install is the only layer of
      // it a build fetches (the builder image is neither pulled nor unpacked).
      lines.push(
        'FROM scratch AS build',
        `COPY --from=${INSTALL_STAGE} ${BUILD_STEPS_DIR} ${BUILD_STEPS_DIR}`,
      );
      lines.push(`COPY . ${BUILD_STEPS_DIR}`);
    } else {
      lines.push(
        ...(install
          ? [`FROM ${INSTALL_STAGE} AS build`]
          : [`FROM ${buildSteps.image} AS build`, 'USER 0', `WORKDIR ${BUILD_STEPS_DIR}`]),
        'COPY . .',
        ...variables,
      );
    }
    (buildSteps.commands ?? []).forEach((_, index) => lines.push(...runLines(buildStepArg(index))));
  }
  lines.push(`FROM ${baseSoftware!.image}`);
  const root = appRoot.replace(/\/+$/, '');
  const entries = Object.entries(directoryMap ?? {}).sort(([a], [b]) => a.localeCompare(b));
  for (const [name, path] of entries) {
    const relative = sourcePath(path);
    const from = buildSteps ? `${BUILD_STEPS_DIR}/${relative}`.replace(/\/\.$/, '') : relative;
    lines.push(`COPY ${buildSteps ? '--from=build ' : ''}${JSON.stringify([from, `${root}/${name}`])}`);
  }
  lines.push(
    `LABEL ${JSON.stringify('dev.slipway.bundle')}=${JSON.stringify(bundle.metadata.name)} ${JSON.stringify(
      'dev.slipway.project',
    )}=${JSON.stringify(bundle.spec.projectRef.name)}`,
  );
  return lines.join('\n') + '\n';
}

/** buildctl options carrying the build steps' commands and variables (argv, never a shell). */
export function buildArgs(bundle: BundleObject): string[] {
  const steps = bundle.spec.buildSteps;
  if (!steps) return [];
  const values: [string, string][] = [
    ...Object.entries(steps.env ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)),
    ...(steps.install?.commands ?? []).map((command, index): [string, string] => [
      installStepArg(index),
      command,
    ]),
    ...(steps.commands ?? []).map((command, index): [string, string] => [buildStepArg(index), command]),
  ];
  return values.flatMap(([name, value]) => ['--opt', `build-arg:${name}=${value}`]);
}

/**
 * buildctl options that import the project's build cache from the registry (with the pull
 * credentials the build container has) and export the new one, every intermediate layer
 * (mode=max: the install runs in the build stage), for the push-cache container to push.
 * Only builds with an install phase use the cache.
 */
export function cacheArgs(bundle: BundleObject, cacheImage: string): string[] {
  if (!bundle.spec.buildSteps?.install) return [];
  return [
    '--import-cache',
    `type=registry,ref=${cacheImage}`,
    '--export-cache',
    `type=local,dest=${CACHE_LAYOUT},mode=max,image-manifest=true,oci-mediatypes=true`,
  ];
}

/**
 * Runs buildctl and passes its output on, adding a line where BuildKit reused a step of the
 * install stage, so the build log says the install was skipped. A RUN of that stage
 * ("#N [install i/n] RUN …") that ran printed "+ <command>" first ("#N 0.05 + …"); one that
 * reaches "#N CACHED" or "#N DONE" without it came from the cache (a cached step whose layers
 * are fetched shows their download and "DONE", not always "CACHED"). The exit status is
 * buildctl's.
 */
export const BUILD_SCRIPT = `status="\${TMPDIR:-/tmp}/buildctl-status"
{ buildctl-daemonless.sh "$@" 2>&1; echo $? > "$status"; } | awk '
{ print; fflush() }
$2 == "[${INSTALL_STAGE}" && $4 == "RUN" && !($1 in step) { step[$1] = "waiting" }
($1 in step) && step[$1] == "waiting" && $3 == "+" { step[$1] = "ran" }
($1 in step) && step[$1] == "waiting" && ($2 == "CACHED" || $2 == "DONE") { step[$1] = "told"; print $1 " install cached: its files, commands, variables and image are those of an earlier build"; fflush() }'
exit "$(cat "$status")"
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
    # Servers that refuse fetching by commit id: fetch the branches, then look for it.
    git fetch -q origin '+refs/heads/*:refs/remotes/origin/*'
    git checkout -q --detach "$GIT_COMMIT" 2>/dev/null || { echo "commit $GIT_COMMIT is not in the repository $shown" >&2; exit 1; }
  fi
  case "$(git rev-parse HEAD)" in "$GIT_COMMIT"*) ;; *) echo "checked out $(git rev-parse HEAD), not $GIT_COMMIT" >&2; exit 1;; esac
  rm -rf .git
fi
# The install phase's files (one per line): a missing one is named here, not by BuildKit.
printf '%s\\n' "\${INSTALL_FILES:-}" | while IFS= read -r file; do
  if [ -n "$file" ] && [ ! -e "/workspace/src/$file" ]; then
    echo "spec.buildSteps.install.files: $file is not in the source" >&2; exit 1
  fi
done
echo "source ready"
`;

/**
 * BuildKit's configuration for a registry served over plain HTTP (SLIPWAY_REGISTRY_INSECURE):
 * pushing there and pulling base images from there.
 */
export function plainHttpRegistryConfig(image: string): string {
  const host = image.split('/')[0]!;
  return `[registry.${JSON.stringify(host)}]\n  http = true\n  insecure = true\n`;
}

export function buildJob(
  bundle: BundleObject,
  project: ProjectObject,
  image: string,
  settings: BuildJobSettings,
  /** The archive URL to download, signed for this Job; the unsigned spec URL otherwise. */
  archiveUrl?: string,
): V1Job {
  const { namespace, name } = bundle.metadata;
  const source = bundle.spec.source;
  const env: V1EnvVar[] = [{ name: 'DOCKERFILE', value: dockerfile(bundle, settings.appRoot) }];
  const install = bundle.spec.buildSteps?.install;
  if (install) env.push({ name: 'INSTALL_FILES', value: install.files.map(sourcePath).join('\n') });
  const cacheImage = buildCacheImage(settings.registry, namespace!, bundle.spec.projectRef.name);
  const buildkitdConfig = settings.registryInsecure ? plainHttpRegistryConfig(image) : undefined;
  if (buildkitdConfig) env.push({ name: 'BUILDKITD_CONFIG', value: buildkitdConfig });
  if (source.archive) {
    env.push(
      { name: 'ARCHIVE_URL', value: archiveUrl ?? source.archive.url },
      { name: 'ARCHIVE_SHA256', value: source.archive.sha256 },
      { name: 'ARCHIVE_SIZE', value: String(source.archive.sizeBytes) },
    );
  } else if (source.git) {
    env.push(
      { name: 'GIT_URL', value: project.spec.repository?.url ?? '' },
      { name: 'GIT_COMMIT', value: source.git.commit },
    );
  }
  const volumes: V1Volume[] = [
    { name: 'workspace', emptyDir: {} },
    { name: 'buildkit', emptyDir: {} },
  ];
  const fetchMounts: V1VolumeMount[] = [{ name: 'workspace', mountPath: '/workspace' }];
  const credentials = project.spec.repository?.credentialsSecretRef?.name;
  if (source.git && credentials) {
    volumes.push({ name: 'credentials', secret: { secretName: credentials, defaultMode: 0o440 } });
    fetchMounts.push({ name: 'credentials', mountPath: '/credentials', readOnly: true });
  }
  const buildMounts: V1VolumeMount[] = [
    { name: 'workspace', mountPath: '/workspace', readOnly: true },
    { name: 'buildkit', mountPath: '/home/user/.local/share/buildkit' },
    { name: 'image', mountPath: '/image' },
  ];
  volumes.push({ name: 'image', emptyDir: {} });
  const pushMounts: V1VolumeMount[] = [{ name: 'image', mountPath: '/image', readOnly: true }];
  // Docker config Secrets, each only in the container that needs it: the build steps never see
  // the push credentials.
  const dockerConfig = (volume: string, secretName: string): V1Volume => ({
    name: volume,
    secret: { secretName, items: [{ key: '.dockerconfigjson', path: 'config.json' }], optional: true },
  });
  if (settings.registryPullSecret) {
    volumes.push(dockerConfig('registry-pull', settings.registryPullSecret));
    buildMounts.push({ name: 'registry-pull', mountPath: '/home/user/.docker', readOnly: true });
  }
  const pushEnv: V1EnvVar[] = [];
  if (settings.registryPushSecret) {
    volumes.push(dockerConfig('registry-push', settings.registryPushSecret));
    pushMounts.push({ name: 'registry-push', mountPath: '/registry-auth', readOnly: true });
    pushEnv.push({ name: 'DOCKER_CONFIG', value: '/registry-auth' });
  }
  const output = `type=oci,dest=${IMAGE_LAYOUT},tar=false`;
  const fetch: V1Container = {
    name: 'fetch',
    image: settings.fetchImage,
    command: ['/bin/sh', '-c', FETCH_SCRIPT],
    env,
    volumeMounts: fetchMounts,
    resources: settings.buildResources,
    // A failing step's last log lines become its termination message, shown on the pod.
    terminationMessagePolicy: 'FallbackToLogsOnError',
    securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
  };
  // The containers that push an OCI layout BuildKit wrote: they run no user code and alone hold
  // the push credentials. crane push <layout> <reference> [options].
  const crane = (name: string, layout: string, reference: string, ...options: string[]): V1Container => ({
    name,
    image: settings.pushImage,
    command: [
      'crane',
      'push',
      layout,
      reference,
      ...options,
      ...(settings.registryInsecure ? ['--insecure'] : []),
    ],
    env: pushEnv,
    volumeMounts: pushMounts,
    resources: settings.buildResources,
    terminationMessagePolicy: 'FallbackToLogsOnError',
    securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
  });
  // The build cache (builds with an install phase), pushed before the image.
  const pushCache = crane(PUSH_CACHE_CONTAINER, CACHE_LAYOUT, cacheImage);
  // The image stays the fourth word (kwok's simulated report reads it there: kwok-stages.ts).
  const push = crane(PUSH_CONTAINER, IMAGE_LAYOUT, image, '--image-refs', '/dev/termination-log');
  const build: V1Container = {
    name: 'build',
    image: settings.builderImage,
    command: ['/bin/sh', '-c', BUILD_SCRIPT, 'build'],
    args: [
      'build',
      '--frontend',
      'dockerfile.v0',
      '--local',
      'context=/workspace/src',
      '--local',
      'dockerfile=/workspace/dockerfile',
      '--output',
      output,
      ...cacheArgs(bundle, cacheImage),
      ...buildArgs(bundle),
    ],
    env: [
      {
        name: 'BUILDKITD_FLAGS',
        value: `--oci-worker-no-process-sandbox${buildkitdConfig ? ' --config=/workspace/buildkitd.toml' : ''}`,
      },
    ],
    volumeMounts: buildMounts,
    resources: settings.buildResources,
    terminationMessagePolicy: 'FallbackToLogsOnError',
    // Rootless BuildKit needs its own user namespaces: no seccomp/AppArmor filtering, but no root.
    securityContext: {
      seccompProfile: { type: 'Unconfined' },
      appArmorProfile: { type: 'Unconfined' },
      runAsUser: BUILD_UID,
      runAsGroup: BUILD_UID,
    },
  };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: buildJobName(name),
      namespace,
      labels: jobLabels(bundle.spec.projectRef.name, name, 'build', bundle.metadata.labels),
      annotations: { [ANNOTATION_BUNDLE]: name },
      ownerReferences: [ownerReference(bundle)],
    },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: settings.buildTimeoutSeconds,
      template: {
        metadata: { labels: jobLabels(bundle.spec.projectRef.name, name, 'build', bundle.metadata.labels) },
        spec: {
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          ...(settings.jobNodeSelector ? { nodeSelector: settings.jobNodeSelector } : {}),
          securityContext: {
            runAsUser: BUILD_UID,
            runAsGroup: BUILD_UID,
            fsGroup: BUILD_UID,
            runAsNonRoot: true,
          },
          initContainers: install ? [fetch, build, pushCache] : [fetch, build],
          containers: [push],
          volumes,
        },
      },
    },
  };
}
