// Deterministic names and labels for everything the operator creates. The same bundle always
// gets the same Job names, so after a restart "already exists" simply means "already done".
import { createHash } from 'node:crypto';

export const MANAGED_BY = 'app.kubernetes.io/managed-by';
export const MANAGER = 'slipway-operator';
export const LABEL_BUNDLE = 'slipway.dev/bundle';
export const LABEL_PROJECT = 'slipway.dev/project';
export const LABEL_STEP = 'slipway.dev/step';
/** On the Deployment and its pod template: the bundle it runs. */
export const ANNOTATION_BUNDLE = 'slipway.dev/bundle';
/** On the Deployment: when the operator started rolling that bundle out. */
export const ANNOTATION_ROLLOUT_STARTED = 'slipway.dev/rollout-started-at';
/** On a Project: how many of its bundles may build at the same time. */
export const ANNOTATION_BUILD_CONCURRENCY = 'slipway.dev/build-concurrency';

const shortHash = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 8);

/**
 * `${base}-${suffix}` when it fits in `max` characters; otherwise a cut base with a hash of the
 * whole base, so two long names that share a prefix still differ.
 */
export function boundedName(base: string, suffix: string, max = 63): string {
  const full = suffix ? `${base}-${suffix}` : base;
  if (full.length <= max) return full;
  const tail = suffix ? `-${shortHash(base)}-${suffix}` : `-${shortHash(base)}`;
  const head = base.slice(0, Math.max(1, max - tail.length)).replace(/[-.]+$/, '');
  return `${head}${tail}`;
}

/** Job names become a pod label value, so they must fit in 63 characters. */
export const buildJobName = (bundle: string) => boundedName(bundle, 'build');
export const backupJobName = (bundle: string) => boundedName(bundle, 'backup');
export const webhookSecretName = (project: string) => boundedName(project, 'webhook', 253);
export const WEBHOOK_SECRET_KEY = 'secret';

/** A label value (at most 63 characters); long object names are shortened with a hash. */
export const labelValue = (name: string) => boundedName(name, '', 63);

/** Where a bundle's image goes: one repository per project, one tag per bundle. */
export function bundleImage(registry: string, namespace: string, project: string, bundle: string): string {
  return `${registry}/${namespace}/${project}:${boundedName(bundle, '', 128)}`;
}

export function jobLabels(project: string, bundle: string, step: 'build' | 'backup'): Record<string, string> {
  return {
    [MANAGED_BY]: MANAGER,
    [LABEL_PROJECT]: labelValue(project),
    [LABEL_BUNDLE]: labelValue(bundle),
    [LABEL_STEP]: step,
  };
}
