// The freezes a bundle waits on (docs/resources.md#freeze-and-resume): its Project's
// spec.suspend holds a build that has not started, its Environment's a backup or rollout that
// has not started. What is under way finishes. Resuming is a change of the Project or
// Environment, which wakes the bundles that wait on them (watches.ts).
import type { Chain, Stop } from './chain.ts';
import type { BundleInputs } from './decision.ts';
import { backedUpBefore } from './backup-step.ts';
import { jobState } from './workload-state.ts';

/** A build that may not start because the project is suspended. */
export function projectFrozen(input: BundleInputs): Stop | undefined {
  if (input.project?.spec.suspend !== true) return undefined;
  const message = `project ${input.project.metadata.name} is suspended (spec.suspend): the build starts when it is resumed (kubectl slipway resume project ${input.project.metadata.name})`;
  return { how: 'inLine', phase: 'Pending', owner: 'Built', reason: 'Suspended', message };
}

/**
 * A backup or rollout that may not start because the environment is suspended. What has begun
 * goes on: this bundle's own rollout, and a backup under way, which ends first.
 */
export function environmentFrozenStep(input: BundleInputs, chain: Chain): Stop | undefined {
  const { environment, ours } = chain.target;
  if (environment.spec.suspend !== true || ours) return undefined;
  if (input.backupJob && jobState(input.backupJob).state === 'running') return undefined;
  const name = environment.metadata.name;
  const message = `environment ${name} is suspended (spec.suspend): no backup or rollout starts there until it is resumed (kubectl slipway resume environment ${name}); the newest bundle waiting then rolls out`;
  if (input.bundle.spec.deploy?.backupBeforeDeploy && !input.backupJob && !backedUpBefore(input.bundle))
    chain.set('BackedUp', 'Unknown', 'Suspended', message);
  return { how: 'inLine', phase: 'Built', owner: 'Deployed', reason: 'Suspended', message };
}
