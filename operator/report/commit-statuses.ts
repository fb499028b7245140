// What a bundle's commit statuses should say now (pure): one per step context, read from the
// bundle's status, so a status that is sent late or again after a restart is still the latest.
//   slipway/build[/<environment>] pending while queued or building; success once built; failure
//                                 when the build (or what comes before it) failed; error when a
//                                 newer bundle superseded it first
//   slipway/deploy/<environment>  once built: pending while backing up and rolling out; success
//                                 when deployed; failure when the backup or rollout failed; error
//                                 when superseded
import { withoutOutput } from '../../rules/container-output.ts';
import type { BundleObject } from '../../crds/index.ts';
import { findCondition } from '../../lib/conditions.ts';
import type { CommitState, CommitStatus } from '../../providers/report.ts';
import { bundleCommit } from '../subjects/bundles.ts';

export const BUILD_CONTEXT = 'slipway/build';
/**
 * A bundle that deploys names its environment in its build's context too: one push that two
 * Webhooks match makes two bundles of the same commit, and neither may overwrite the other's.
 */
export const buildContext = (environment: string | undefined) =>
  environment ? `${BUILD_CONTEXT}/${environment}` : BUILD_CONTEXT;
export const deployContext = (environment: string) => `slipway/deploy/${environment}`;

/** The environment of a `slipway/deploy/<environment>` context. */
export function deployedEnvironment(context: string): string | undefined {
  const prefix = deployContext('');
  return context.startsWith(prefix) ? context.slice(prefix.length) : undefined;
}

export const isFinal = (state: CommitState) => state !== 'pending';

/**
 * The first line of a condition message, without the image reference's length, and without a
 * failed step's output: a commit status is public on a public repository (fork authors read it);
 * the output stays in the build's logs (rules/container-output.ts).
 */
const said = (message: string | undefined, fallback: string) =>
  withoutOutput((message ?? '').split('\n')[0] ?? '') || fallback;

export function desiredStatuses(bundle: BundleObject, targetUrl: string | undefined): CommitStatus[] {
  const status = bundle.status;
  // A promotion's bundle builds nothing: only its rollout is told, on the promoted commit.
  const promotion = bundle.spec.trigger.type === 'Promotion';
  if (!status?.phase || (!promotion && (!bundleCommit(bundle) || bundle.spec.source.bundleRef))) return [];
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
  const environment = bundle.spec.deploy?.environmentRef.name;
  const BUILD = buildContext(environment);
  // A promotion's bundle builds nothing (its Built is the reuse of the promoted image).
  const build = promotion ? undefined : buildStatus(bundle);
  if (build) statuses.push(at(build.state, BUILD, build.description));

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

/** The state of a bundle's build, for slipway/build, once there is one to tell. */
function buildStatus(bundle: BundleObject): { state: CommitState; description: string } | undefined {
  const status = bundle.status!;
  const name = bundle.metadata.name;
  const built = findCondition(status.conditions, 'Built');
  const ready = findCondition(status.conditions, 'Ready');
  if (built?.status === 'True') return { state: 'success', description: `Built bundle ${name}` };
  if (built?.status === 'False' || status.phase === 'Failed')
    return { state: 'failure', description: said(built?.message ?? ready?.message, 'the build failed') };
  if (status.phase === 'Superseded')
    return { state: 'error', description: said(ready?.message, 'superseded by a newer bundle') };
  if (status.phase === 'Queued') return { state: 'pending', description: `Bundle ${name} is queued` };
  if (status.phase === 'Building' || status.startedAt)
    return { state: 'pending', description: `Building bundle ${name}` };
  return undefined;
}
