// What a bundle should do next, decided from gathered state alone (no I/O, clock injected).
// The chain reads top to bottom like a Flux reconciler: each step owns one condition and
// either lets the chain continue or stops it with a reason; `Ready` summarises at the end.
//
//   project present → not superseded → Built → (environment free) → BackedUp → Deployed → Ready
import type { V1Deployment, V1Job } from '@kubernetes/client-node';
import type { BundleObject, BundleReason, EnvironmentObject } from '../../crds/index.ts';
import { findCondition } from '../../lib/conditions.ts';
import { timeMs } from '../../rules/timestamps.ts';
import { isFinished } from '../../rules/bundle-outcome.ts';
import { backupJobName, buildJobName } from '../names.ts';
import { podProblem } from './pod-problems.ts';
import { buildSettingsProblem } from './settings.ts';
import { jobState, ownedBy, rolloutState, whoseJob } from './workload-state.ts';
import { foreignImage, reuseStep } from './reuse.ts';
import { runningBundle } from '../running-bundle.ts';
import type { BundleDecision, BundleInputs } from './decision.ts';
import { jobBlocked, paused, replicaFailure, rolloutStarted } from './workload-readings.ts';
import { automaticRollback, supersededBy } from './siblings.ts';
import { buildSlotWait } from './build-slots.ts';
import { Chain, cond, withOutput, type ChainResult } from './chain.ts';
import { environmentFrozen, projectFrozen } from './suspended.ts';

const SKIP: BundleDecision = {
  skip: true,
  phase: 'Pending',
  conditions: [],
  action: { type: 'none' },
  outcome: 'finished',
  status: {},
};

/** Being deleted, or finished: a bundle never decided again. */
export const isSettled = (bundle: BundleObject): boolean =>
  !!bundle.metadata.deletionTimestamp || isFinished(bundle);

export function decideBundle(input: BundleInputs): BundleDecision {
  const { bundle } = input;
  if (isSettled(bundle)) return SKIP;
  return { skip: false, ...runChain(input) };
}

function runChain(input: BundleInputs): ChainResult {
  const { bundle, project } = input;
  const chain = new Chain(input);
  const name = bundle.metadata.name;
  const projectName = bundle.spec.projectRef.name;

  if (!project || project.metadata.deletionTimestamp)
    return chain.waiting('Pending', 'ProjectNotFound', `project ${projectName} does not exist`);

  // Superseded: a newer bundle for the same environment wins, unless this one is already rolling out.
  const superseded = supersededBy(input);
  if (superseded) {
    chain.set(cond('Deployed', 'False', 'Superseded', superseded));
    const unfinished = [input.buildJob, input.backupJob].some((j) => j && jobState(j).state === 'running');
    return chain.failed(
      'Superseded',
      'Superseded',
      superseded,
      unfinished ? { type: 'stopJobs' } : { type: 'none' },
    );
  }

  // Step: Built.
  const built = buildStep(input, chain);
  if (built) return built;
  if (!bundle.spec.deploy) return chain.succeeded('Built', `built image ${chain.status.image}`);

  // Step: the environment and its Deployment must be there and free.
  const target = deployTarget(input, chain);
  if ('stop' in target) return target.stop;
  const { environment, deployment, container } = target;
  const envName = environment.metadata.name;
  const running = runningBundle(deployment);

  if (running !== name) {
    const busyWith = running && input.projectBundles.find((b) => b.metadata.name === running);
    if (busyWith && !isFinished(busyWith)) {
      const message = `waiting for bundle ${running} to finish rolling out to environment ${envName}`;
      if (bundle.spec.deploy.backupBeforeDeploy)
        chain.set(cond('BackedUp', 'Unknown', 'WaitingForEnvironment', message));
      chain.set(cond('Deployed', 'Unknown', 'WaitingForEnvironment', message));
      return chain.waiting('Built', 'WaitingForEnvironment', message, 'Unknown');
    }
  }

  // A freeze holds what has not started (a backup under way ends first): the backup, the rollout.
  const backingUp = input.backupJob && jobState(input.backupJob).state === 'running';
  const frozen = running !== name && !backingUp && environmentFrozen(input, chain, environment);
  if (frozen) return frozen;

  // Step: BackedUp (only when asked, and only right before this bundle's own rollout).
  if (bundle.spec.deploy.backupBeforeDeploy) {
    const backedUp = backupStep(input, chain, environment, running === name);
    if (backedUp) return backedUp;
  }

  // Step: Deployed.
  const image = chain.status.image!;
  const deploymentName = deployment.metadata?.name ?? environment.spec.deploymentRef.name;
  if (running !== name && rolloutStarted(bundle)) {
    // Someone put another pod template back while this bundle rolled out (kubectl rollout undo
    // on a broken release): rolling it out again would undo their rollback. (A cache that has not
    // seen this bundle's own patch yet gets here too: the decision on live state, made before any
    // act or end, sees the Deployment as it is.)
    const message = `Deployment ${deploymentName} was changed to ${running ? `bundle ${running}` : 'another pod template'} while this bundle rolled out (kubectl rollout undo?); not rolling it out again`;
    chain.set(cond('Deployed', 'False', 'RolloutReplaced', message));
    return chain.failed('Failed', 'RolloutReplaced', message);
  }
  if (running !== name) {
    // The image comes from status, which only Slipway writes (the slipway-writers policy); still,
    // nothing but the project's own repository, by digest, goes into a Deployment.
    const foreign = foreignImage(image, input.image);
    if (foreign) {
      chain.set(cond('Deployed', 'False', 'ForeignImage', foreign));
      return chain.failed('Failed', 'ForeignImage', foreign);
    }
    const message = `updating Deployment ${deploymentName} to image ${image}`;
    chain.set(cond('Deployed', 'Unknown', 'Progressing', message));
    return chain.progressing('Deploying', 'Progressing', message, { type: 'startRollout', container, image });
  }
  const rollout = rolloutState(deployment, name);
  // An application's own output may hold secrets: a crashing container is named, not quoted.
  const blocked = podProblem(input.pods?.rollout ?? []) ?? replicaFailure(deployment);
  if (rollout.state === 'failed') {
    const message = blocked ? `${rollout.message}; ${blocked.message}` : rollout.message;
    chain.set(cond('Deployed', 'False', 'RolloutFailed', message));
    const back = automaticRollback(input, environment);
    return chain.failed(
      'Failed',
      'RolloutFailed',
      back ? `${message}; rolling back to bundle ${back.to}` : message,
      back?.made ? { type: 'none' } : (back?.action ?? { type: 'none' }),
    );
  }
  if (rollout.state === 'complete') {
    const message = `environment ${envName} runs image ${image}`;
    chain.set(cond('Deployed', 'True', 'Succeeded', message));
    return chain.succeeded('Ready', message);
  }
  // Waits (no 5 s re-checks for what may last hours): resuming it is a Deployment event.
  const pause = paused(deployment);
  if (pause) {
    chain.set(cond('Deployed', 'Unknown', pause.reason, pause.message));
    return chain.waiting('Deploying', pause.reason, pause.message);
  }
  if (blocked) {
    const problem = {
      ...blocked,
      message: `rolling out to Deployment ${deploymentName}: ${blocked.message}`,
    };
    chain.set(cond('Deployed', 'Unknown', problem.reason, problem.message));
    return chain.blocked('Deploying', problem);
  }
  const message =
    rollout.state === 'progressing'
      ? `rolling out to Deployment ${deploymentName}: ${rollout.message}`
      : `rolling out to Deployment ${deploymentName}`;
  chain.set(cond('Deployed', 'Unknown', 'Progressing', message));
  return chain.progressing('Deploying', 'Progressing', message);
}

/** Whether the build step waits for the live read of what the build Job pushed. */
export function awaitsPushedImage(input: BundleInputs): boolean {
  const { bundle, buildJob } = input;
  return (
    !bundle.spec.source.bundleRef &&
    !builtBefore(bundle) &&
    input.pushedImage === undefined &&
    !!buildJob &&
    jobState(buildJob).state === 'succeeded'
  );
}

const builtBefore = (bundle: BundleObject): boolean =>
  !!bundle.status?.image && findCondition(bundle.status.conditions, 'Built')?.status === 'True';

function buildStep(input: BundleInputs, chain: Chain): ChainResult | undefined {
  const { bundle, project, buildJob } = input;
  if (bundle.spec.source.bundleRef) return reuseStep(input, chain, bundle.spec.source.bundleRef.name);
  const jobName = buildJobName(bundle.metadata.namespace, bundle.metadata.name);
  const where = { namespace: input.buildNamespace, job: jobName };
  if (builtBefore(bundle)) {
    chain.status.image = bundle.status!.image;
    chain.set(cond('Built', 'True', 'Succeeded', `built image ${chain.status.image}`));
    return undefined;
  }
  if (buildJob) {
    chain.status.buildJob = jobName;
    chain.status.build = where;
    if (input.logsUrl) chain.status.logsUrl = input.logsUrl;
    const ended = jobStep(input, chain, BUILD, buildJob, jobName);
    if (ended !== 'succeeded') return ended;
    if (input.pushedImage === undefined) {
      // Read live next (awaitsPushedImage): the digest is what gets deployed, never the tag.
      const message = `build Job ${jobName} succeeded; reading the digest it pushed`;
      chain.set(cond('Built', 'Unknown', 'Building', message));
      return chain.progressing('Building', 'Building', message);
    }
    if (input.pushedImage === null) {
      const message = `build Job ${jobName} succeeded, but its push container's report of the pushed digest is gone (its pod was deleted?), so there is no image to deploy by digest: create the bundle again`;
      chain.set(cond('Built', 'False', 'DigestUnknown', message));
      return chain.failed('Failed', 'DigestUnknown', message);
    }
    chain.status.image = input.pushedImage;
    chain.set(cond('Built', 'True', 'Succeeded', `built image ${input.pushedImage}`));
    return undefined;
  }

  const problem = buildSettingsProblem(bundle, project!, input);
  if (problem?.permanent) {
    chain.set(cond('Built', 'False', problem.reason, problem.message));
    return chain.failed('Failed', problem.reason, problem.message);
  }
  if (problem) {
    chain.set(cond('Built', 'Unknown', problem.reason, problem.message));
    return chain.waiting('Pending', problem.reason, problem.message);
  }

  const frozen = projectFrozen(input, chain);
  if (frozen) return frozen;
  const queued = buildSlotWait(input);
  if (queued) {
    chain.set(cond('Built', 'Unknown', 'Queued', queued));
    return chain.waiting('Queued', 'Queued', queued, 'Unknown');
  }
  chain.status.buildJob = jobName;
  chain.status.build = where;
  if (input.logsUrl) chain.status.logsUrl = input.logsUrl;
  chain.status.startedAt ??= input.now.toISOString();
  const message = `build Job ${jobName} started`;
  chain.set(cond('Built', 'Unknown', 'Building', message));
  return chain.progressing('Building', 'Building', message, { type: 'createBuildJob' });
}

type Target =
  { stop: ChainResult } | { environment: EnvironmentObject; deployment: V1Deployment; container: string };

/** An Environment's Ready reasons that stop only bundles that back up. */
const BACKUP_REASONS = new Set(['DatabaseSecretNotFound', 'DatabaseSecretIncomplete', 'BackupClaimNotFound']);

/** How long a built bundle waits for its Environment to be usable before it fails (default). */
export const DEFAULT_WAIT_TIMEOUT_SECONDS = 300;

/** Waiting since the bundle was built (or took its image), for at most the Environment's limit. */
function waitForEnvironment(
  input: BundleInputs,
  chain: Chain,
  step: 'Deployed' | 'BackedUp',
  reason: BundleReason,
  message: string,
): ChainResult {
  const built = findCondition(input.bundle.status?.conditions, 'Built');
  const since =
    (built?.status === 'True' ? timeMs(built.lastTransitionTime) : undefined) ?? input.now.getTime();
  const limit = (input.environment?.spec.waitTimeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_SECONDS) * 1000;
  return chain.waitingAtMost('Built', step, reason, message, since, limit);
}

function deployTarget(input: BundleInputs, chain: Chain): Target {
  const { bundle, environment, deployment } = input;
  const envName = bundle.spec.deploy!.environmentRef.name;
  const blocked = (reason: BundleReason, message: string): Target => ({
    stop: waitForEnvironment(input, chain, 'Deployed', reason, message),
  });
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
  return { environment, deployment, container: container.name };
}

function backupStep(
  input: BundleInputs,
  chain: Chain,
  environment: EnvironmentObject,
  rollingOut: boolean,
): ChainResult | undefined {
  const { bundle, backupJob } = input;
  const jobName = backupJobName(bundle.metadata.name);
  const envName = environment.metadata.name;
  if (rollingOut || findCondition(bundle.status?.conditions, 'BackedUp')?.status === 'True') {
    if (bundle.status?.backup) chain.status.backup = bundle.status.backup;
    chain.set(cond('BackedUp', 'True', 'Succeeded', `backup Job ${jobName} finished`));
    return undefined;
  }
  if (!backupJob) {
    if (!environment.spec.database || !environment.spec.backupStorage) {
      const missing = !environment.spec.database ? 'spec.database' : 'spec.backupStorage';
      const message = `a backup was asked for, but environment ${envName} has no ${missing}`;
      return waitForEnvironment(input, chain, 'BackedUp', 'BackupNotConfigured', message);
    }
    if (!input.backupLocation) {
      const message = `environment ${envName} has a spec.backupStorage.pathPrefix that is not a relative path without ".."`;
      return waitForEnvironment(input, chain, 'BackedUp', 'BackupNotConfigured', message);
    }
  }
  chain.status.backup = { job: jobName, ...(input.backupLocation ? { location: input.backupLocation } : {}) };
  if (!backupJob) {
    const message = `backup Job ${jobName} started`;
    chain.set(cond('BackedUp', 'Unknown', 'BackingUp', message));
    return chain.progressing('BackingUp', 'BackingUp', message, { type: 'createBackupJob' });
  }
  const ended = jobStep(input, chain, BACKUP, backupJob, jobName);
  if (ended !== 'succeeded') return ended;
  chain.set(cond('BackedUp', 'True', 'Succeeded', `backup Job ${jobName} finished`));
  return undefined;
}

/** What differs between the two steps that run a Job: the build and the backup. */
interface JobStep {
  kind: 'build' | 'backup';
  condition: 'Built' | 'BackedUp';
  phase: 'Building' | 'BackingUp';
  running: 'Building' | 'BackingUp';
  failed: 'BuildFailed' | 'BackupFailed';
  /** Said after a failure's cause. */
  afterFailure: string;
}
const BUILD: JobStep = {
  kind: 'build',
  condition: 'Built',
  phase: 'Building',
  running: 'Building',
  failed: 'BuildFailed',
  afterFailure: '',
};
const BACKUP: JobStep = {
  kind: 'backup',
  condition: 'BackedUp',
  phase: 'BackingUp',
  running: 'BackingUp',
  failed: 'BackupFailed',
  afterFailure: '; nothing was deployed',
};

/**
 * The ladder of a step that runs a Job: succeeded (the caller writes what it produced), failed
 * with the container's last output, blocked (its pods cannot run), or running.
 */
function jobStep(
  input: BundleInputs,
  chain: Chain,
  step: JobStep,
  job: V1Job,
  jobName: string,
): ChainResult | 'succeeded' {
  if (!ownedBy(job, input.bundle)) {
    const message = `Job ${jobName} exists but is not this bundle's (${whoseJob(job)}); nothing of it is used: delete it and recreate the bundle`;
    chain.set(cond(step.condition, 'False', 'JobNotOwned', message));
    return chain.failed('Failed', 'JobNotOwned', message);
  }
  const state = jobState(job);
  if (state.state === 'succeeded') return 'succeeded';
  if (state.state === 'failed') {
    const message = withOutput(
      `${step.kind} Job ${jobName} failed: ${state.message}${step.afterFailure}`,
      input.failedOutput?.[step.kind],
    );
    chain.set(cond(step.condition, 'False', step.failed, message));
    return chain.failed('Failed', step.failed, message);
  }
  const blocked = jobBlocked(input, step.kind, jobName);
  if (blocked) {
    chain.set(cond(step.condition, 'Unknown', blocked.reason, blocked.message));
    return chain.blocked(step.phase, blocked);
  }
  const message = `${step.kind} Job ${jobName} is running`;
  chain.set(cond(step.condition, 'Unknown', step.running, message));
  return chain.progressing(step.phase, step.running, message);
}
