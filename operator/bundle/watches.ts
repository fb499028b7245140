// Which bundles the Bundle controller looks at again when something they depend on changes:
// their own events, their project's other bundles, Jobs, pods, environments, Deployments.
import type { BundleObject } from '../../crds/index.ts';
import { isFinished } from '../../rules/bundle-outcome.ts';
import { findCondition } from '../../lib/conditions.ts';
import { ANNOTATION_BUNDLE, LABEL_BUNDLE, LABEL_BUNDLE_NAMESPACE } from '../../crds/labels.ts';
import { objectKey } from '../../lib/informer.ts';
import type { OperatorContext } from '../context.ts';
import { INDEX } from '../informers.ts';
import { inShard } from '../shard.ts';
import type { Controller } from '../reconcile/controller.ts';

/** Queued for a build slot, waiting for its environment, or not yet looked at. */
function waitsForSiblings(b: BundleObject): boolean {
  const phase = b.status?.phase;
  return (
    phase === undefined ||
    phase === 'Queued' ||
    findCondition(b.status?.conditions, 'Ready')?.reason === 'WaitingForEnvironment'
  );
}

/** Which bundles to look at again when something they depend on changes. */
export function watchForBundles(ctx: OperatorContext, controller: Controller): void {
  const { informers } = ctx;
  const enqueue = (b: BundleObject) => controller.enqueue(b.metadata.namespace, b.metadata.name);
  const unfinishedOfProject = (key: string) => informers.bundles.byIndex(INDEX.unfinishedOfProject, key);
  const unfinishedOfEnvironment = (key: string) =>
    informers.bundles.byIndex(INDEX.unfinishedOfEnvironment, key);

  informers.bundles.onEvent((b, type) => {
    // A push nobody has looked at goes ahead of the follow-ups of running chains: starting its
    // build is what its author waits for (with ten environments at once, four busy workers
    // made new bundles wait up to 400 ms in the queue).
    if (type === 'add' && !b.status) controller.enqueueAhead(b.metadata.namespace, b.metadata.name);
    else enqueue(b);
    // A new bundle may supersede its siblings, a deleted one free what it held; any other
    // change matters only to the siblings waiting for a build slot or an environment (each
    // status write enqueuing every unfinished sibling made ten environments' bundles crowd
    // the queue).
    for (const sibling of unfinishedOfProject(objectKey(b.metadata.namespace, b.spec.projectRef.name)))
      if (sibling.metadata.name !== b.metadata.name && (type !== 'update' || waitsForSiblings(sibling)))
        enqueue(sibling);
  });
  const ofPod = (namespace: string | undefined, label: string | undefined) => {
    if (!label) return;
    for (const b of informers.bundles.byIndex(INDEX.bundleLabel, objectKey(namespace, label)))
      if (!isFinished(b)) enqueue(b);
  };
  informers.pods.onEvent((p) => ofPod(p.metadata?.namespace, p.metadata?.labels?.[LABEL_BUNDLE]));
  informers.buildPods.onEvent((p) =>
    ofPod(p.metadata?.labels?.[LABEL_BUNDLE_NAMESPACE], p.metadata?.labels?.[LABEL_BUNDLE]),
  );
  informers.jobs.onEvent((j) => {
    const owner = j.metadata?.ownerReferences?.find((o) => o.kind === 'Bundle');
    controller.enqueue(j.metadata?.namespace, owner?.name);
  });
  // A build Job names its bundle in labels and an annotation: it is in the build namespace. One
  // that ends frees a slot of its namespace: the bundles queued there look again.
  informers.buildJobs.onEvent((j, type) => {
    const namespace = j.metadata?.labels?.[LABEL_BUNDLE_NAMESPACE];
    controller.enqueue(namespace, j.metadata?.annotations?.[ANNOTATION_BUNDLE]);
    if (namespace && type !== 'add')
      for (const b of informers.bundles.byIndex(INDEX.queuedInNamespace, namespace)) enqueue(b);
  });
  informers.projects.onEvent((p) => {
    const key = objectKey(p.metadata.namespace, p.metadata.name);
    // Moved to another shard: all its bundles go with it, finished ones too (rollbacks reuse them).
    const all = !inShard(ctx, p);
    for (const b of all ? informers.bundles.byIndex(INDEX.project, key) : unfinishedOfProject(key))
      enqueue(b);
  });
  informers.environments.onEvent((e) => {
    for (const b of unfinishedOfEnvironment(objectKey(e.metadata.namespace, e.metadata.name))) enqueue(b);
  });
  informers.deployments.onEvent((d) => {
    const namespace = d.metadata?.namespace ?? '';
    for (const e of informers.environments.byIndex(
      INDEX.deployment,
      objectKey(namespace, d.metadata?.name ?? ''),
    ))
      for (const b of unfinishedOfEnvironment(objectKey(namespace, e.metadata.name))) enqueue(b);
  });
}

/** A merge patch applied to a status: null removes a field. */
