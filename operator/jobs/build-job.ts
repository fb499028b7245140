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
import { registryHost } from '../../rules/registry-access.ts';
import type { V1EnvVar, V1Job, V1ResourceRequirements } from '@kubernetes/client-node';
import type { BundleObject, ProjectObject } from '../../crds/index.ts';
import { ANNOTATION_BUNDLE } from '../../crds/labels.ts';
import { controllerReferenceTo } from '../../crds/owner-references.ts';
import { buildCacheImage, buildJobLabels, buildJobName, type BuildSecretUse } from '../names.ts';
import { buildStoreParts } from './build-store.ts';
import { buildArgs, dockerfile, sourcePath } from './dockerfile.ts';
import { BUILD_UID, IMAGE_LAYOUT, buildContainers, buildMounts } from './build-containers.ts';

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

/** Where the build leaves the project's build cache (an OCI layout) for the push-cache container. */
const CACHE_LAYOUT = '/image/cache';

/** The push container's name: its termination message is the pushed reference with digest. */
export const PUSH_CONTAINER = 'push';
/** The init container that pushes the project's build cache (builds with an install phase). */
export const PUSH_CACHE_CONTAINER = 'push-cache';

/**
 * BuildKit's configuration for a registry served over plain HTTP (SLIPWAY_REGISTRY_INSECURE):
 * pushing there and pulling base images from there.
 */
export function plainHttpRegistryConfig(image: string): string {
  const host = registryHost(image);
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

/** What the fetch container is told: the Dockerfile, and where the source comes from. */
function fetchEnv(
  bundle: BundleObject,
  project: ProjectObject,
  image: string,
  settings: BuildJobSettings,
  archiveUrl?: string,
): V1EnvVar[] {
  const source = bundle.spec.source;
  const env: V1EnvVar[] = [{ name: 'DOCKERFILE', value: dockerfile(bundle, settings.appRoot) }];
  const install = bundle.spec.buildSteps?.install;
  if (install) env.push({ name: 'INSTALL_FILES', value: install.files.map(sourcePath).join('\n') });
  if (settings.registryInsecure)
    env.push({ name: 'BUILDKITD_CONFIG', value: plainHttpRegistryConfig(image) });
  if (source.archive)
    env.push(
      { name: 'ARCHIVE_URL', value: archiveUrl ?? source.archive.url },
      { name: 'ARCHIVE_SHA256', value: source.archive.sha256 },
      { name: 'ARCHIVE_SIZE', value: String(source.archive.sizeBytes) },
    );
  else if (source.git)
    env.push(
      { name: 'GIT_URL', value: project.spec.repository?.url ?? '' },
      { name: 'GIT_COMMIT', value: source.git.commit },
      ...(source.git.fetchRef ? [{ name: 'GIT_FETCH_REF', value: source.git.fetchRef }] : []),
    );
  return env;
}

/** What a project's pull requests build with: no environment has this name (`_` is not allowed in one). */
const PREVIEWS = '_previews';

/**
 * Whose build cache and store a bundle uses: the environment's it deploys to; the previews' own
 * for a pull request, so a later pull request starts warm, yet what a pull request's commands
 * leave never feeds an environment's build; undefined for a bundle that only builds.
 */
const cacheOwner = (bundle: BundleObject) =>
  bundle.spec.deploy?.environmentRef.name ??
  (bundle.spec.trigger.type === 'PullRequest' ? PREVIEWS : undefined);

/** The node's build store for the project (build-store.ts), when there is one. */
function storeOf(project: ProjectObject, settings: BuildJobSettings, environment: string | undefined) {
  // A Project read from the API server always has a uid; the store is never shared without one.
  const projectUid = project.metadata.uid;
  if (!settings.buildStore || !projectUid) return undefined;
  return buildStoreParts({
    root: settings.buildStore,
    projectUid,
    environment,
    keepMegabytes: settings.buildStoreKeepMegabytes,
    uid: BUILD_UID,
    image: settings.builderImage,
    resources: settings.buildResources,
  });
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
  const { namespace, name } = bundle.metadata;
  // Code from a fork's pull request neither reads nor writes what the project's builds share.
  const fork = bundle.spec.trigger.fork === true;
  const install = bundle.spec.buildSteps?.install;
  const cached = install !== undefined && !fork;
  const environment = cacheOwner(bundle);
  const cacheImage = buildCacheImage(settings.registry, namespace!, bundle.spec.projectRef.name, environment);
  const store = fork ? undefined : storeOf(project, settings, environment);
  const mounts = buildMounts(bundle, made.secrets ?? {}, store);
  const containers = buildContainers(settings, mounts);
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
      ...(namespace === settings.buildNamespace
        ? { ownerReferences: [controllerReferenceTo('Bundle', bundle)] }
        : {}),
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
          initContainers: [
            ...(store ? [store.prepare] : []),
            containers.fetch(fetchEnv(bundle, project, image, settings, made.archiveUrl)),
            containers.build(buildArgs(bundle), [
              ...(cached ? cacheEnv(cacheImage) : []),
              ...(store?.env ?? []),
            ]),
            ...(cached ? [containers.push(PUSH_CACHE_CONTAINER, CACHE_LAYOUT, cacheImage)] : []),
          ],
          // The image stays the fourth word (kwok's simulated report reads it there: kwok-stages.ts).
          containers: [
            containers.push(PUSH_CONTAINER, IMAGE_LAYOUT, image, '--image-refs', '/dev/termination-log'),
          ],
          volumes: mounts.volumes,
        },
      },
    },
  };
}
