// The `built` step: the bundle's image, built by its Job (pushed, then read back by digest) or
// taken from the bundle its source.bundleRef names. Owns the Built condition.
import type { BundleObject } from '../../crds/index.ts';
import { findCondition } from '../../lib/conditions.ts';
import { buildJobName } from '../names.ts';
import type { Chain, Stop } from './chain.ts';
import type { BundleInputs } from './decision.ts';
import { BUILD, jobStep, jobToStart } from './job-step.ts';
import { reuseStep } from './reuse.ts';
import { buildSettingsProblem } from './settings.ts';
import { buildSlotWait } from './build-slots.ts';
import { projectFrozen } from './suspended.ts';
import { jobState } from './workload-state.ts';

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

export function buildStep(input: BundleInputs, chain: Chain): Stop | undefined {
  const { bundle, project, buildJob } = input;
  if (bundle.spec.source.bundleRef) return reuseStep(input, chain, bundle.spec.source.bundleRef.name);
  const jobName = buildJobName(bundle.metadata.namespace, bundle.metadata.name);
  if (builtBefore(bundle)) return built(chain, bundle.status!.image!);
  if (buildJob) {
    recordBuild(input, chain, jobName);
    const ended = jobStep(input, BUILD, buildJob, jobName);
    if (ended !== 'succeeded') return ended;
    if (input.pushedImage === undefined) {
      // Read live next (awaitsPushedImage): the digest is what gets deployed, never the tag.
      const message = `build Job ${jobName} succeeded; reading the digest it pushed`;
      return { how: 'progressing', phase: 'Building', owner: 'Built', reason: 'Building', message };
    }
    if (input.pushedImage === null) {
      const message = `build Job ${jobName} succeeded, but its push container's report of the pushed digest is gone (its pod was deleted?), so there is no image to deploy by digest: create the bundle again`;
      return { how: 'failed', phase: 'Failed', owner: 'Built', reason: 'DigestUnknown', message };
    }
    return built(chain, input.pushedImage);
  }

  const problem = buildSettingsProblem(bundle, project!, input);
  if (problem)
    return problem.permanent
      ? { how: 'failed', phase: 'Failed', owner: 'Built', reason: problem.reason, message: problem.message }
      : {
          how: 'waiting',
          phase: 'Pending',
          owner: 'Built',
          reason: problem.reason,
          message: problem.message,
        };

  const frozen = projectFrozen(input);
  if (frozen) return frozen;
  const queued = buildSlotWait(input);
  if (queued) return { how: 'inLine', phase: 'Queued', owner: 'Built', reason: 'Queued', message: queued };
  recordBuild(input, chain, jobName);
  chain.status.startedAt ??= input.now.toISOString();
  return jobToStart(BUILD, jobName);
}

function built(chain: Chain, image: string): undefined {
  chain.status.image = image;
  chain.set('Built', 'True', 'Succeeded', `built image ${image}`);
  return undefined;
}

/** Where the build runs and its logs are, in the bundle's status. */
function recordBuild(input: BundleInputs, chain: Chain, jobName: string): void {
  chain.status.buildJob = jobName;
  chain.status.build = { namespace: input.buildNamespace, job: jobName };
  if (input.logsUrl) chain.status.logsUrl = input.logsUrl;
}
