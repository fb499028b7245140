// What the operator stops watching once a bundle has finished (pure; the controller labels).
//
// A finished bundle is never decided again (decide.ts skips it), so its ended Jobs and their
// pods are history: kept on the cluster for `kubectl slipway logs` and for the user, but not in
// the operator's caches. The operator labels them slipway.dev/finished and its informers select
// only objects without that label, so the API server drops them from its watches. With 5,000
// finished bundles, their build Jobs were three quarters of the bytes the operator read at
// start and most of its cache. Argo Workflows' controller does the same with its `completed`
// label on workflows and pods.
import type { V1Job } from '@kubernetes/client-node';
import type { BundleObject } from '../../crds/index.ts';
import { isFinished } from '../../crds/bundle-outcome.ts';
import { LABEL_FINISHED } from '../../crds/labels.ts';
import type { BundlePods } from './decide.ts';
import { jobState, podEnded } from './state.ts';

/** The label's value, and the merge patch that sets it. */
export const FINISHED_LABEL_PATCH = { metadata: { labels: { [LABEL_FINISHED]: 'true' } } };

export interface Retirement {
  /** Pods first: once the Jobs leave the cache, their pods could be forgotten. */
  pods: string[];
  jobs: string[];
}

/**
 * The cached Jobs and pods of a finished bundle that can be let go: Jobs that have ended (a
 * superseded bundle's Job still being stopped keeps its build slot until it is gone) and pods
 * that have ended. Nothing for an unfinished bundle, or one being deleted (the garbage collector
 * takes its Jobs).
 */
export function retirement(input: {
  bundle: BundleObject;
  buildJob?: V1Job;
  backupJob?: V1Job;
  pods?: BundlePods;
}): Retirement {
  const { bundle } = input;
  if (bundle.metadata.deletionTimestamp || !isFinished(bundle)) return { pods: [], jobs: [] };
  const jobs = [input.buildJob, input.backupJob].filter(
    (job): job is V1Job => job !== undefined && jobState(job).state !== 'running',
  );
  const pods = [...(input.pods?.build ?? []), ...(input.pods?.backup ?? [])].filter(podEnded);
  const names = (objects: Array<{ metadata?: { name?: string } }>) =>
    objects.flatMap((o) => (o.metadata?.name ? [o.metadata.name] : []));
  return { pods: names(pods), jobs: names(jobs) };
}
