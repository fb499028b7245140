// A bundle's decision as a named list of steps, read top to bottom (docs/architecture.md#decisions-as-declared-steps):
//
//   project → superseded → built → deployAsked → environment → environmentFree
//           → environmentFrozen → backedUp → deployed
//
// Each step is a pure function over the gathered input (BundleInputs) and what the steps before
// it found (the Chain). A step passes (undefined), stating its own condition True when it owns
// one, or stops the chain; Ready is derived from the stop in one place (chain.ts readyOf). A new
// owned condition is a new step here and a name in OwnedCondition.
import type { Chain, Step, Stop } from './chain.ts';
import type { BundleInputs } from './decision.ts';
import { backupStep } from './backup-step.ts';
import { buildStep } from './build-step.ts';
import { deployStep } from './deploy-step.ts';
import { environmentFreeStep, environmentStep } from './environment-steps.ts';
import { supersededBy } from './siblings.ts';
import { environmentFrozenStep } from './suspended.ts';
import { jobState } from './workload-state.ts';

function projectStep(input: BundleInputs): Stop | undefined {
  const { project } = input;
  if (project && !project.metadata.deletionTimestamp) return undefined;
  const message = `project ${input.bundle.spec.projectRef.name} does not exist`;
  return { how: 'waiting', phase: 'Pending', reason: 'ProjectNotFound', message };
}

/** A newer bundle for the same environment wins, unless this one is already rolling out. */
function supersededStep(input: BundleInputs): Stop | undefined {
  const superseded = supersededBy(input);
  if (!superseded) return undefined;
  const unfinished = [input.buildJob, input.backupJob].some((j) => j && jobState(j).state === 'running');
  return {
    how: 'failed',
    phase: 'Superseded',
    owner: 'Deployed',
    reason: 'Superseded',
    message: superseded,
    action: unfinished ? { type: 'stopJobs' } : { type: 'none' },
  };
}

/** A bundle without spec.deploy is done once it is built. */
function deployAskedStep(input: BundleInputs, chain: Chain): Stop | undefined {
  if (input.bundle.spec.deploy) return undefined;
  return {
    how: 'succeeded',
    phase: 'Built',
    reason: 'Succeeded',
    message: `built image ${chain.status.image}`,
  };
}

export const BUNDLE_STEPS = [
  { name: 'project', run: projectStep },
  { name: 'superseded', run: supersededStep },
  { name: 'built', run: buildStep },
  { name: 'deployAsked', run: deployAskedStep },
  { name: 'environment', run: environmentStep },
  { name: 'environmentFree', run: environmentFreeStep },
  { name: 'environmentFrozen', run: environmentFrozenStep },
  { name: 'backedUp', run: backupStep },
  { name: 'deployed', run: deployStep },
] as const satisfies readonly Step[];

export type BundleStepName = (typeof BUNDLE_STEPS)[number]['name'];
