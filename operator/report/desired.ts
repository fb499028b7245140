// What a bundle's commit statuses should say now (pure): one per step context, read from the
// bundle's status, so a status that is sent late or again after a restart is still the latest.
//   slipway/build                 pending while queued or building; success once built; failure
//                                 when the build (or what comes before it) failed; error when a
//                                 newer bundle superseded it first
//   slipway/deploy/<environment>  once built: pending while backing up and rolling out; success
//                                 when deployed; failure when the backup or rollout failed; error
//                                 when superseded
import type { BundleObject } from '../../crds/index.ts';
import { findCondition } from '../../lib/conditions.ts';
import type { CommitState, CommitStatus } from '../../providers/report.ts';

export const BUILD_CONTEXT = 'slipway/build';
export const deployContext = (environment: string) => `slipway/deploy/${environment}`;

/** The commit a bundle built, when it names one (git bundles; uploads that say theirs). */
export function bundleCommit(bundle: BundleObject): string | undefined {
  const commit = bundle.spec.source.git?.commit ?? bundle.spec.source.archive?.commit;
  return commit && /^[0-9a-f]{7,64}$/i.test(commit) ? commit.toLowerCase() : undefined;
}

export const isFinal = (state: CommitState) => state !== 'pending';

/** The first line of a condition message, without the image reference's length. */
const said = (message: string | undefined, fallback: string) => (message ?? '').split('\n')[0] || fallback;

export function desiredStatuses(bundle: BundleObject, targetUrl: string | undefined): CommitStatus[] {
  const status = bundle.status;
  if (!status?.phase || !bundleCommit(bundle) || bundle.spec.source.bundleRef) return [];
  const phase = status.phase;
  const built = findCondition(status.conditions, 'Built');
  const ready = findCondition(status.conditions, 'Ready');
  const at = (state: CommitState, context: string, description: string): CommitStatus => ({
    state,
    context,
    description,
    ...(targetUrl ? { targetUrl } : {}),
  });
  const statuses: CommitStatus[] = [];
  const name = bundle.metadata.name;
  if (built?.status === 'True') statuses.push(at('success', BUILD_CONTEXT, `Built bundle ${name}`));
  else if (built?.status === 'False' || phase === 'Failed')
    statuses.push(at('failure', BUILD_CONTEXT, said(built?.message ?? ready?.message, 'the build failed')));
  else if (phase === 'Superseded')
    statuses.push(at('error', BUILD_CONTEXT, said(ready?.message, 'superseded by a newer bundle')));
  else if (phase === 'Queued') statuses.push(at('pending', BUILD_CONTEXT, `Bundle ${name} is queued`));
  else if (phase === 'Building' || status.startedAt)
    statuses.push(at('pending', BUILD_CONTEXT, `Building bundle ${name}`));

  const environment = bundle.spec.deploy?.environmentRef.name;
  if (!environment || built?.status !== 'True') return statuses;
  const context = deployContext(environment);
  const deployed = findCondition(status.conditions, 'Deployed');
  if (deployed?.status === 'True') statuses.push(at('success', context, `Deployed to ${environment}`));
  else if (phase === 'Failed')
    statuses.push(at('failure', context, said(ready?.message, 'the deployment failed')));
  else if (phase === 'Superseded') statuses.push(at('error', context, said(ready?.message, 'superseded')));
  else statuses.push(at('pending', context, `Deploying to ${environment}`));
  return statuses;
}
