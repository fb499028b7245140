// The Bundle kind's caches (the shard's): Bundles with the indexes their watches use, and the
// Jobs and pods a bundle's steps run: backup Jobs and the pods of bundles in their namespaces,
// build Jobs and their pods in the build namespace (docs/adr/0004).
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import type { BundleObject } from '../../crds/index.ts';
import {
  LABEL_BUNDLE,
  LABEL_BUNDLE_NAMESPACE,
  LABEL_FINISHED,
  LABEL_PROJECT,
  LABEL_STEP,
  MANAGED_BY,
  labelValue,
} from '../../crds/labels.ts';
import { objectKey } from '../../lib/informer.ts';
import { isFinished } from '../../rules/bundle-outcome.ts';
import { INDEX, and, bundleNamespace, metadataAndStatus, ns, ref, type InformerScope } from '../indexes.ts';
import { MANAGER } from '../names.ts';

const ofBundle = (o: { metadata?: { labels?: Record<string, string> } }, label: string) => {
  const value = o.metadata?.labels?.[label];
  return value ? [objectKey(bundleNamespace(o), value)] : [];
};

export function bundleInformers(scope: InformerScope) {
  const { namespace, selector, buildNamespace } = scope;
  // Watching every namespace, the build namespace is left to buildJobs and buildPods; watching
  // one, only its bundles' builds are watched there.
  const notBuilds = namespace ? undefined : `metadata.namespace!=${buildNamespace}`;
  const ofWatched = namespace ? `${LABEL_BUNDLE_NAMESPACE}=${namespace}` : undefined;
  const notEnded = 'status.phase!=Succeeded,status.phase!=Failed';
  // Only the Jobs this operator made, but not those of finished bundles (bundle/retire.ts).
  const unfinishedJobs = `${MANAGED_BY}=${MANAGER},${LABEL_FINISHED}!=true`;
  return {
    bundles: scope
      .kind<BundleObject>('Bundle', true)
      .addIndex(INDEX.project, (b) => ref(b, b.spec?.projectRef?.name))
      .addIndex(INDEX.unfinishedOfProject, (b) => (isFinished(b) ? [] : ref(b, b.spec?.projectRef?.name)))
      .addIndex(INDEX.queuedInNamespace, (b) => (b.status?.phase === 'Queued' ? [ns(b)] : []))
      .addIndex(INDEX.unfinishedOfEnvironment, (b) =>
        isFinished(b) ? [] : ref(b, b.spec?.deploy?.environmentRef?.name),
      )
      .addIndex(INDEX.webhook, (b) => ref(b, b.spec?.trigger?.webhookRef?.name))
      .addIndex(INDEX.bundleLabel, (b) => ref(b, labelValue(b.metadata.name)))
      .addIndex(INDEX.preview, (b) => ref(b, b.spec?.trigger?.previewRef?.name)),
    /** Backup Jobs, in the bundles' namespaces. */
    jobs: scope.builtin<V1Job>('batch/v1', 'jobs', namespace, {
      labelSelector: and(unfinishedJobs, selector),
      fieldSelector: notBuilds,
      transform: metadataAndStatus,
    }),
    /** Build Jobs, in the build namespace; INDEX.project keys are the bundles' namespaces. */
    buildJobs: scope
      .builtin<V1Job>('batch/v1', 'jobs', buildNamespace, {
        labelSelector: and(and(`${unfinishedJobs},${LABEL_STEP}=build`, ofWatched), selector),
        transform: metadataAndStatus,
      })
      .addIndex(INDEX.project, (j) => ofBundle(j, LABEL_PROJECT))
      .addIndex(INDEX.buildsOfNamespace, (j) => (bundleNamespace(j) ? [bundleNamespace(j)] : [])),
    /**
     * The pods of bundles in their namespaces: their backup Jobs' pods and the pods of their
     * rollouts. Only pods that carry a bundle's label and have not ended: what the operator reads
     * of pods is why a live one cannot run. An ended pod leaves the watch (the API server sends
     * DELETED), so finished bundles' pods are not kept.
     */
    pods: scope
      .builtin<V1Pod>('v1', 'pods', namespace, {
        labelSelector: and(LABEL_BUNDLE, selector),
        fieldSelector: notBuilds ? `${notEnded},${notBuilds}` : notEnded,
        transform: metadataAndStatus,
      })
      .addIndex(INDEX.bundle, (p) => ref(p, p.metadata?.labels?.[LABEL_BUNDLE])),
    /** The build Jobs' pods, in the build namespace; INDEX.bundle keys are the bundles' namespaces. */
    buildPods: scope
      .builtin<V1Pod>('v1', 'pods', buildNamespace, {
        labelSelector: and(and(LABEL_BUNDLE, ofWatched), selector),
        fieldSelector: notEnded,
        transform: metadataAndStatus,
      })
      .addIndex(INDEX.bundle, (p) => ofBundle(p, LABEL_BUNDLE)),
  };
}
