// The labels and annotations Slipway puts on objects, and the rule for their values: shared by
// the gateway (which labels the Bundles it creates) and the operator (which labels its Jobs and
// selects by these labels). A label value has at most 63 characters; longer names are cut and
// made unique with a hash of the whole name (boundedName), the same way everywhere.
import { createHash } from 'node:crypto';

export const MANAGED_BY = 'app.kubernetes.io/managed-by';
export const LABEL_PROJECT = 'slipway.dev/project';
export const LABEL_BUNDLE = 'slipway.dev/bundle';
export const LABEL_WEBHOOK = 'slipway.dev/webhook';
export const LABEL_TRIGGER = 'slipway.dev/trigger';
export const LABEL_STEP = 'slipway.dev/step';
/**
 * On a Preview's bundles and on the objects that serve it (its Deployment's pods are selected by
 * this label alone, so no Service of the environment it copies ever reaches them): the Preview.
 */
export const LABEL_PREVIEW = 'slipway.dev/preview';
/** On the bundle a Promotion made: the Promotion. */
export const LABEL_PROMOTION = 'slipway.dev/promotion';
/**
 * On a build Job and its pods, which run in the build namespace (docs/adr/0004): the namespace
 * and uid of the bundle they build. Owner references cannot cross namespaces; only the operator
 * creates Jobs there, so these labels stand in for one.
 */
export const LABEL_BUNDLE_NAMESPACE = 'slipway.dev/bundle-namespace';
export const LABEL_BUNDLE_UID = 'slipway.dev/bundle-uid';
/** On a Bundle whose build Job was made: removed once that Job and its Secrets are gone. */
export const FINALIZER_BUILD = 'slipway.dev/build';
/**
 * The operator shard a Project belongs to (Flux's sharding.fluxcd.io/key): an operator started
 * with --watch-label-selector sees only the objects it selects. The Project's value is carried
 * to its Bundles, their Jobs and pods, and the pods of its rollouts.
 */
export const LABEL_SHARD = 'slipway.dev/shard';

/** The shard label to carry, from an object's labels: `{}` for the default shard. */
export function shardLabel(labels: Record<string, string> | undefined): Record<string, string> {
  const shard = labels?.[LABEL_SHARD];
  return shard ? { [LABEL_SHARD]: shard } : {};
}
/**
 * On a build or backup Job, set by the operator once its bundle has finished: the operator
 * watches only the Jobs without it (Argo Workflows' `completed` label), so its start and its
 * memory do not grow with the history of finished builds. (Pods leave its watch when they end.)
 */
export const LABEL_FINISHED = 'slipway.dev/finished';
/** On a Bundle made by the gateway: its millisecond arrival time (creationTimestamp has whole seconds). */
export const ANNOTATION_RECEIVED_AT = 'slipway.dev/received-at';
/** On the Deployment and its pod template: the bundle it runs. */
export const ANNOTATION_BUNDLE = 'slipway.dev/bundle';
/**
 * On a Project, set by `kubectl slipway hook rotate`: when its webhook Secret last changed. The
 * operator does not watch Secrets; this change of the Project makes it publish the new URL now.
 */
export const ANNOTATION_SECRET_ROTATED_AT = 'slipway.dev/webhook-secret-rotated-at';
/**
 * Set by `kubectl slipway reconcile` (any value; the time by convention): the operator looks at
 * the object again at once, reading its Secrets afresh, and copies the value to
 * status.lastHandledReconcileAt once it has (Flux's reconcile.fluxcd.io/requestedAt).
 */
export const ANNOTATION_REQUESTED_AT = 'slipway.dev/requested-at';

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

/** A label value (at most 63 characters); long object names are shortened with a hash. */
export const labelValue = (name: string) => boundedName(name, '', 63);
