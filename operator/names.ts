// Deterministic names and labels for everything the operator creates. The same bundle always
// gets the same Job names, so after a restart "already exists" simply means "already done".
import {
  LABEL_BUNDLE,
  LABEL_BUNDLE_NAMESPACE,
  LABEL_BUNDLE_UID,
  LABEL_PROJECT,
  LABEL_STEP,
  MANAGED_BY,
  boundedName,
  labelValue,
  shardLabel,
} from '../crds/labels.ts';
import type { BundleReason, ProjectReason } from '../crds/index.ts';

export const MANAGER = 'slipway-operator';
/** On the Deployment: when the operator started rolling that bundle out. */
export const ANNOTATION_ROLLOUT_STARTED = 'slipway.dev/rollout-started-at';
/** On a Project: how many of its bundles may build at the same time. */
export const ANNOTATION_BUILD_CONCURRENCY = 'slipway.dev/build-concurrency';
/**
 * A Project's Ready reasons while its git bundles cannot clone (project/decide.ts): the Secret
 * its repository names is missing, an SSH key comes without known_hosts, or a password would go
 * over plain http. Its git bundles wait with the same reason (bundle/settings.ts).
 */
export const CLONE_PROBLEMS = [
  'CredentialsSecretNotFound',
  'KnownHostsMissing',
  'InsecureRepository',
] as const satisfies ReadonlyArray<ProjectReason & BundleReason>;
export type CloneProblem = (typeof CLONE_PROBLEMS)[number];

/** Job names become a pod label value, so they must fit in 63 characters. */
export { buildJobName } from '../rules/build-namespace.ts';
/**
 * The copies of the Secrets a build needs, beside its Job in the build namespace (act.ts):
 * deleted when the build ends and with the Job.
 */
export const buildSecretName = (job: string, use: BuildSecretUse) => `${job}-${use}`;
export type BuildSecretUse = 'git' | 'push' | 'pull';
export const backupJobName = (bundle: string) => boundedName(bundle, 'backup');
export { WEBHOOK_SECRET_KEY, webhookSecretName } from '../rules/webhook-url.ts';

/** The repository of an image reference `<repository>:<tag>` (a bundleImage). */
export const imageRepository = (image: string): string => image.replace(/:[^/:]+$/, '');

/** Where a bundle's image goes: one repository per project, one tag per bundle. */
export function bundleImage(registry: string, namespace: string, project: string, bundle: string): string {
  return `${registry}/${namespace}/${project}:${boundedName(bundle, '', 128)}`;
}

/**
 * Where the build cache of a project's bundles deploying to `environment` goes: the project's
 * image repository under a tag no bundle can have (bundle names have no `_`). One cache per
 * namespace, project and environment: the install a staging push left (the build steps are its
 * pushers' code) never feeds a production build, nor one namespace's another's.
 */
export function buildCacheImage(
  registry: string,
  namespace: string,
  project: string,
  environment: string | undefined,
): string {
  const tag = environment ? `${BUILD_CACHE_TAG}.${boundedName(environment, '', 116)}` : BUILD_CACHE_TAG;
  return `${registry}/${namespace}/${project}:${tag}`;
}
export const BUILD_CACHE_TAG = 'build_cache';

export function jobLabels(
  project: string,
  bundle: string,
  step: 'build' | 'backup',
  /** The bundle's labels: its shard (LABEL_SHARD) goes on the Job and its pods too. */
  bundleLabels?: Record<string, string>,
): Record<string, string> {
  return {
    [MANAGED_BY]: MANAGER,
    [LABEL_PROJECT]: labelValue(project),
    [LABEL_BUNDLE]: labelValue(bundle),
    [LABEL_STEP]: step,
    ...shardLabel(bundleLabels),
  };
}

/** A build Job's (and its pods') labels: jobLabels and the bundle it builds, from the build namespace. */
export function buildJobLabels(bundle: {
  metadata: { name: string; namespace?: string; uid?: string; labels?: Record<string, string> };
  spec: { projectRef: { name: string } };
}): Record<string, string> {
  const { name, namespace, uid, labels } = bundle.metadata;
  return {
    ...jobLabels(bundle.spec.projectRef.name, name, 'build', labels),
    [LABEL_BUNDLE_NAMESPACE]: namespace ?? '',
    [LABEL_BUNDLE_UID]: uid ?? '',
  };
}
