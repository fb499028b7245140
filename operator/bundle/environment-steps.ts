// The steps between a built image and its rollout: `environment` finds where the bundle deploys
// (its Environment, that Environment's Deployment and container, ready for this bundle), and
// `environmentFree` waits while another bundle of the project still rolls out there.
import type { BundleReason } from '../../crds/index.ts';
import { findCondition } from '../../lib/conditions.ts';
import { isFinished } from '../../rules/bundle-outcome.ts';
import { timeMs } from '../../rules/timestamps.ts';
import { runningBundle } from '../running-bundle.ts';
import type { Chain, OwnedCondition, Stop } from './chain.ts';
import { REQUEUE_WAITING_MS, type BundleInputs } from './decision.ts';
import { rolloutStarted } from './workload-readings.ts';

/** An Environment's Ready reasons that stop only bundles that back up. */
const BACKUP_REASONS = new Set(['DatabaseSecretNotFound', 'DatabaseSecretIncomplete', 'BackupClaimNotFound']);

/** How long a built bundle waits for its Environment to be usable before it fails (default). */
const DEFAULT_WAIT_TIMEOUT_SECONDS = 300;

/**
 * Waiting for the Environment, but not for ever: counted from when the bundle was built (or took
 * its image), it fails with the same reason once it has waited the Environment's
 * spec.waitTimeoutSeconds, so nothing (CI, upload.sh) hangs on a setup that cannot work.
 * Looked at again when it is due.
 */
export function waitForEnvironment(
  input: BundleInputs,
  owner: OwnedCondition,
  reason: BundleReason,
  message: string,
): Stop {
  const built = findCondition(input.bundle.status?.conditions, 'Built');
  const since =
    (built?.status === 'True' ? timeMs(built.lastTransitionTime) : undefined) ?? input.now.getTime();
  const limitMs = (input.environment?.spec.waitTimeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_SECONDS) * 1000;
  const waited = input.now.getTime() - since;
  if (waited >= limitMs) {
    const gaveUp = `${message}; gave up after waiting ${Math.round(limitMs / 1000)} s (the Environment's spec.waitTimeoutSeconds)`;
    return { how: 'failed', phase: 'Failed', owner, reason, message: gaveUp };
  }
  const requeueAfterMs = Math.min(REQUEUE_WAITING_MS, limitMs - waited + 250);
  return { how: 'waiting', phase: 'Built', owner, reason, message, requeueAfterMs };
}

export function environmentStep(input: BundleInputs, chain: Chain): Stop | undefined {
  const { bundle, environment, deployment } = input;
  const envName = bundle.spec.deploy!.environmentRef.name;
  const blocked = (reason: BundleReason, message: string) =>
    waitForEnvironment(input, 'Deployed', reason, message);
  if (!environment || environment.metadata.deletionTimestamp)
    return blocked('EnvironmentNotFound', `environment ${envName} does not exist`);
  if (environment.spec.projectRef.name !== bundle.spec.projectRef.name)
    return blocked(
      'EnvironmentProjectMismatch',
      `environment ${envName} belongs to project ${environment.spec.projectRef.name}, not ${bundle.spec.projectRef.name}`,
    );
  const deploymentName = environment.spec.deploymentRef.name;
  if (!deployment) return blocked('DeploymentNotFound', `Deployment ${deploymentName} does not exist`);
  const containers = deployment.spec?.template?.spec?.containers ?? [];
  const wanted = environment.spec.deploymentRef.container;
  const container = wanted ? containers.find((c) => c.name === wanted) : containers[0];
  if (!container)
    return blocked(
      'ContainerNotFound',
      wanted
        ? `Deployment ${deploymentName} has no container ${wanted}`
        : `Deployment ${deploymentName} has no containers`,
    );
  // Nothing starts that cannot work: no backup or rollout while the Environment says it is not
  // ready — for a reason that matters to this bundle (its database and backup claim only when it
  // backs up), and not once its own rollout has begun (the Deployment is rolling already).
  const ready = findCondition(environment.status?.conditions, 'Ready');
  const backupOnly = BACKUP_REASONS.has(ready?.reason ?? '') && !bundle.spec.deploy!.backupBeforeDeploy;
  if (ready?.status === 'False' && !backupOnly && !rolloutStarted(bundle))
    return blocked(
      'EnvironmentNotReady',
      `environment ${envName} is not ready (${ready.reason}): ${ready.message}`,
    );
  const running = runningBundle(deployment);
  chain.target = {
    environment,
    deployment,
    container: container.name,
    running,
    ours: running === bundle.metadata.name,
  };
  return undefined;
}

/** Another bundle of the project still rolling out to the environment goes first. */
export function environmentFreeStep(input: BundleInputs, chain: Chain): Stop | undefined {
  const { bundle } = input;
  const { environment, running, ours } = chain.target;
  if (ours) return undefined;
  const busyWith = running && input.projectBundles.find((b) => b.metadata.name === running);
  if (!busyWith || isFinished(busyWith)) return undefined;
  const message = `waiting for bundle ${running} to finish rolling out to environment ${environment.metadata.name}`;
  if (bundle.spec.deploy!.backupBeforeDeploy)
    chain.set('BackedUp', 'Unknown', 'WaitingForEnvironment', message);
  return { how: 'inLine', phase: 'Built', owner: 'Deployed', reason: 'WaitingForEnvironment', message };
}
