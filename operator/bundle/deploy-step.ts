// The `deployed` step: the bundle's image goes into its Environment's Deployment, and the
// rollout is watched to its end (complete, failed with an automatic rollback, paused, blocked).
// Owns the Deployed condition; the chain's last step, so it always stops.
import { podProblem } from './pod-problems.ts';
import type { Chain, Stop } from './chain.ts';
import type { BundleInputs } from './decision.ts';
import { foreignImage } from './reuse.ts';
import { automaticRollback } from './siblings.ts';
import { paused, replicaFailure, rolloutStarted } from './workload-readings.ts';
import { rolloutState } from './workload-state.ts';

export function deployStep(input: BundleInputs, chain: Chain): Stop {
  const { bundle } = input;
  const { environment, deployment, container, running, ours } = chain.target;
  const name = bundle.metadata.name;
  const image = chain.status.image!;
  const deploymentName = deployment.metadata?.name ?? environment.spec.deploymentRef.name;
  const owner = 'Deployed';
  if (!ours && rolloutStarted(bundle)) {
    // Someone put another pod template back while this bundle rolled out (kubectl rollout undo
    // on a broken release): rolling it out again would undo their rollback. (A cache that has not
    // seen this bundle's own patch yet gets here too: the decision on live state, made before any
    // act or end, sees the Deployment as it is.)
    const message = `Deployment ${deploymentName} was changed to ${running ? `bundle ${running}` : 'another pod template'} while this bundle rolled out (kubectl rollout undo?); not rolling it out again`;
    return { how: 'failed', phase: 'Failed', owner, reason: 'RolloutReplaced', message };
  }
  if (!ours) {
    // The image comes from status, which only Slipway writes (the slipway-writers policy); still,
    // nothing but the project's own repository, by digest, goes into a Deployment.
    const foreign = foreignImage(image, input.image);
    if (foreign) return { how: 'failed', phase: 'Failed', owner, reason: 'ForeignImage', message: foreign };
    return {
      how: 'progressing',
      phase: 'Deploying',
      owner,
      reason: 'Progressing',
      message: `updating Deployment ${deploymentName} to image ${image}`,
      action: { type: 'startRollout', container, image },
    };
  }
  const rollout = rolloutState(deployment, name);
  // An application's own output may hold secrets: a crashing container is named, not quoted.
  const blocked = podProblem(input.pods?.rollout ?? []) ?? replicaFailure(deployment);
  if (rollout.state === 'failed') {
    const failure = blocked ? `${rollout.message}; ${blocked.message}` : rollout.message;
    const back = automaticRollback(input, environment);
    return {
      how: 'failed',
      phase: 'Failed',
      owner,
      reason: 'RolloutFailed',
      message: back ? `${failure}; rolling back to bundle ${back.to}` : failure,
      action: back?.made ? { type: 'none' } : (back?.action ?? { type: 'none' }),
    };
  }
  if (rollout.state === 'complete')
    return {
      how: 'succeeded',
      phase: 'Ready',
      owner,
      reason: 'Succeeded',
      message: `environment ${environment.metadata.name} runs image ${image}`,
    };
  // Waits (no 5 s re-checks for what may last hours): resuming it is a Deployment event.
  const pause = paused(deployment);
  if (pause) return { how: 'waiting', phase: 'Deploying', owner, ...pause };
  if (blocked)
    return {
      how: 'blocked',
      phase: 'Deploying',
      owner,
      reason: blocked.reason,
      message: `rolling out to Deployment ${deploymentName}: ${blocked.message}`,
    };
  const message =
    rollout.state === 'progressing'
      ? `rolling out to Deployment ${deploymentName}: ${rollout.message}`
      : `rolling out to Deployment ${deploymentName}`;
  return { how: 'progressing', phase: 'Deploying', owner, reason: 'Progressing', message };
}
