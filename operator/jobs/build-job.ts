// The build Job of a bundle, as a plain manifest (pure; the controller creates it). The backup
// Job is backup-job.ts.
//
// Build Job: an init container fetches the source into an emptyDir (git clone of the commit with
// the project's credentials, or the archive download checked against its size and sha256) and
// writes a Dockerfile (dockerfile.ts); a second init container runs rootless BuildKit in
// daemonless mode (and so the build steps, the user's code) and writes the image as an OCI layout
// into another emptyDir, and with an install phase the install stage's cache too, which a third
// init container, push-cache, pushes; then the push container pushes the image and leaves the
// pushed digest as its termination message (how Tekton returns results), which the operator
// reads into the bundle's image reference. push-cache and push run no user code and are the only
// containers holding the registry's push credentials. With a store on the node (build-store.ts),
// a first init container, build-store, hands its directory to the build's user. The scripts are
// build-scripts.ts.
//
// The Job runs in the build namespace, apart from the bundle's (docs/adr/0004): it is found by
// its name and labels (buildJobLabels), not an owner reference, and mounts the copies of the
// Secrets it needs that act.ts made beside it.
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
import { buildCacheImage, buildJobLabels, buildJobName, type BuildSecretUse } from '../names.ts';
import { BUILD_SCRIPT, FETCH_SCRIPT } from './build-scripts.ts';
import { buildStoreParts } from './build-store.ts';
import { buildArgs, dockerfile, sourcePath } from './dockerfile.ts';

export interface BuildJobSettings {
  buildNamespace: string;
  registry: string;
  fetchImage: string;
  builderImage: string;
  pushImage: string;
  registryInsecure: boolean;
  appRoot: string;
  buildTimeoutSeconds: number;
  jobNodeSelector: Record<string, string> | undefined;
  buildResources: V1ResourceRequirements;
  buildStore: string | undefined;
  buildStoreKeepMegabytes: number;
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

/**
 * BuildKit's configuration for a registry served over plain HTTP (SLIPWAY_REGISTRY_INSECURE):
 * pushing there and pulling base images from there.
 */
export function plainHttpRegistryConfig(image: string): string {
  const host = image.split('/')[0]!;
  return `[registry.${JSON.stringify(host)}]\n  http = true\n  insecure = true\n`;
}

/**
 * Where BUILD_SCRIPT takes and leaves the cache of a build with an install phase: imported from
 * the registry with the pull credentials the build container has, exported (every layer of the
 * install stage, mode=max) as an OCI layout for push-cache.
 */
function cacheEnv(cacheImage: string): V1EnvVar[] {
  return [
    { name: 'CACHE_FROM', value: `type=registry,ref=${cacheImage}` },
    {
      name: 'CACHE_TO',
      value: `type=local,dest=${CACHE_LAYOUT},mode=max,image-manifest=true,oci-mediatypes=true`,
    },
  ];
}

export function buildJob(
  bundle: BundleObject,
  project: ProjectObject,
  image: string,
  settings: BuildJobSettings,
  made: {
    /** The copies of the Secrets the build mounts in the build namespace, by use (those that exist). */
    secrets?: Partial<Record<BuildSecretUse, string>>;
    /** The archive URL to download, signed for this Job; the unsigned spec URL otherwise. */
    archiveUrl?: string;
  } = {},
): V1Job {
  const { secrets = {}, archiveUrl } = made;
  const { namespace, name } = bundle.metadata;
  const source = bundle.spec.source;
  const env: V1EnvVar[] = [{ name: 'DOCKERFILE', value: dockerfile(bundle, settings.appRoot) }];
  const install = bundle.spec.buildSteps?.install;
  if (install) env.push({ name: 'INSTALL_FILES', value: install.files.map(sourcePath).join('\n') });
  const environment = bundle.spec.deploy?.environmentRef.name;
  const cacheImage = buildCacheImage(settings.registry, namespace!, bundle.spec.projectRef.name, environment);
  // A Project read from the API server always has a uid; the store is never shared without one.
  const projectUid = project.metadata.uid;
  const store =
    settings.buildStore && projectUid
      ? buildStoreParts({
          root: settings.buildStore,
          projectUid,
          environment,
          keepMegabytes: settings.buildStoreKeepMegabytes,
          uid: BUILD_UID,
          image: settings.builderImage,
          resources: settings.buildResources,
        })
      : undefined;
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
  if (source.git && secrets.git) {
    volumes.push({ name: 'credentials', secret: { secretName: secrets.git, defaultMode: 0o440 } });
    fetchMounts.push({ name: 'credentials', mountPath: '/credentials', readOnly: true });
  }
  const buildMounts: V1VolumeMount[] = [
    { name: 'workspace', mountPath: '/workspace', readOnly: true },
    { name: 'buildkit', mountPath: '/home/user/.local/share/buildkit' },
    { name: 'image', mountPath: '/image' },
  ];
  volumes.push({ name: 'image', emptyDir: {} });
  if (store) {
    volumes.push(store.volume);
    buildMounts.push(store.mount);
  }
  const pushMounts: V1VolumeMount[] = [{ name: 'image', mountPath: '/image', readOnly: true }];
  // Docker config Secrets, each only in the container that needs it: the build steps never see
  // the push credentials.
  const dockerConfig = (volume: string, secretName: string): V1Volume => ({
    name: volume,
    secret: { secretName, items: [{ key: '.dockerconfigjson', path: 'config.json' }] },
  });
  if (secrets.pull) {
    volumes.push(dockerConfig('registry-pull', secrets.pull));
    buildMounts.push({ name: 'registry-pull', mountPath: '/home/user/.docker', readOnly: true });
  }
  const pushEnv: V1EnvVar[] = [];
  if (secrets.push) {
    volumes.push(dockerConfig('registry-push', secrets.push));
    pushMounts.push({ name: 'registry-push', mountPath: '/registry-auth', readOnly: true });
    pushEnv.push({ name: 'DOCKER_CONFIG', value: '/registry-auth' });
  }
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
      ...buildArgs(bundle),
    ],
    env: [
      {
        name: 'BUILDKITD_FLAGS',
        value: `--oci-worker-no-process-sandbox${buildkitdConfig ? ' --config=/workspace/buildkitd.toml' : ''}`,
      },
      { name: 'BUILD_OUTPUT', value: `type=oci,dest=${IMAGE_LAYOUT},tar=false` },
      ...(install ? cacheEnv(cacheImage) : []),
      ...(store?.env ?? []),
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
  const labels = buildJobLabels(bundle);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: buildJobName(namespace!, name),
      namespace: settings.buildNamespace,
      labels,
      annotations: { [ANNOTATION_BUNDLE]: name },
      // A bundle in the build namespace itself owns its Job as its backup Job is owned.
      ...(namespace === settings.buildNamespace ? { ownerReferences: [ownerReference(bundle)] } : {}),
    },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: settings.buildTimeoutSeconds,
      template: {
        metadata: { labels, annotations: { [ANNOTATION_BUNDLE]: name } },
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
          initContainers: [...(store ? [store.prepare] : []), fetch, build, ...(install ? [pushCache] : [])],
          containers: [push],
          volumes,
        },
      },
    },
  };
}
