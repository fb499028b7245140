// What the operator stops watching once a bundle has finished (pure; the controller labels).
//
// A finished bundle is never decided again (decide.ts skips it), so its ended Jobs are history:
// kept on the cluster for `kubectl slipway logs` and for the user, but not in the operator's
// caches. The operator labels them slipway.dev/finished and its Job informer selects only Jobs
// without that label, so the API server drops them from its watch. With 5,000 finished bundles,
// their build Jobs were three quarters of the bytes the operator read at start and most of its
// cache. Argo Workflows' controller does the same with its `completed` label on workflows.
// Pods need no label: the pod informer selects pods that have not ended (informers.ts).
import type { V1Job } from '@kubernetes/client-node';
import type { BundleObject } from '../../crds/index.ts';
import { isFinished } from '../../rules/bundle-outcome.ts';
import { LABEL_FINISHED } from '../../crds/labels.ts';
import { jobState, ownedBy } from './workload-state.ts';

/** The label's value, and the merge patch that sets it. */
export const FINISHED_LABEL_PATCH = { metadata: { labels: { [LABEL_FINISHED]: 'true' } } };

/**
 * The cached Jobs of a finished bundle that can be let go: Jobs that have ended (a superseded
 * bundle's Job still being stopped keeps its build slot until it is gone). None for an unfinished
 * bundle, or one being deleted (its finalizer and the garbage collector take its Jobs).
 */
export function retirement(input: { bundle: BundleObject; buildJob?: V1Job; backupJob?: V1Job }): V1Job[] {
  const { bundle } = input;
  if (bundle.metadata.deletionTimestamp || !isFinished(bundle)) return [];
  return [input.buildJob, input.backupJob].flatMap((job) =>
    job?.metadata?.name && ownedBy(job, bundle) && jobState(job).state !== 'running' ? [job] : [],
  );
}
