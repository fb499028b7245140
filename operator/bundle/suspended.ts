// The freezes a bundle waits on (docs/resources.md#freeze-and-resume): its Project's
// spec.suspend holds a build that has not started, its Environment's a backup or rollout that
// has not started. What is under way finishes. Resuming is a change of the Project or
// Environment, which wakes the bundles that wait on them (watches.ts).
import type { EnvironmentObject } from '../../crds/index.ts';
import type { Chain, ChainResult } from './chain.ts';
import { cond } from './chain.ts';
import type { BundleInputs } from './decision.ts';

/** A build that may not start because the project is suspended. */
export function projectFrozen(input: BundleInputs, chain: Chain): ChainResult | undefined {
  if (input.project?.spec.suspend !== true) return undefined;
  const message = `project ${input.project.metadata.name} is suspended (spec.suspend): the build starts when it is resumed (kubectl slipway resume project ${input.project.metadata.name})`;
  chain.set(cond('Built', 'Unknown', 'Suspended', message));
  return chain.waiting('Pending', 'Suspended', message, 'Unknown');
}

/** A backup or rollout that may not start because the environment is suspended. */
export function environmentFrozen(
  input: BundleInputs,
  chain: Chain,
  environment: EnvironmentObject,
): ChainResult | undefined {
  if (environment.spec.suspend !== true) return undefined;
  const name = environment.metadata.name;
  const message = `environment ${name} is suspended (spec.suspend): no backup or rollout starts there until it is resumed (kubectl slipway resume environment ${name}); the newest bundle waiting then rolls out`;
  const backedUp = input.bundle.status?.conditions?.some((c) => c.type === 'BackedUp' && c.status === 'True');
  if (input.bundle.spec.deploy?.backupBeforeDeploy && !input.backupJob && !backedUp)
    chain.set(cond('BackedUp', 'Unknown', 'Suspended', message));
  chain.set(cond('Deployed', 'Unknown', 'Suspended', message));
  return chain.waiting('Built', 'Suspended', message, 'Unknown');
}
