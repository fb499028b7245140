// What a bundle should do next, decided from gathered state alone (no I/O, clock injected): the
// steps of steps.ts, run in order until one stops.
import type { BundleObject } from '../../crds/index.ts';
import { isFinished } from '../../rules/bundle-outcome.ts';
import { runSteps } from './chain.ts';
import type { BundleDecision, BundleInputs } from './decision.ts';
import { BUNDLE_STEPS } from './steps.ts';

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
  return { skip: false, ...runSteps(BUNDLE_STEPS, input) };
}
