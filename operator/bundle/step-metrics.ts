// A life-cycle observer: step durations and outcomes (slipway_operator_step_duration_seconds,
// slipway_operator_steps_total), counted once per step that ended after it began. A step whose
// start is unknown (a rollback's reused image, a Superseded bundle's step) is not counted.
import { stepDuration, stepTotal } from '../metrics.ts';
import type { BundleLifecycleEvent } from './lifecycle.ts';

export function countStep(event: BundleLifecycleEvent): void {
  if (!event.step || event.stepStartedAt === undefined || event.type === 'RolledBack') return;
  if (event.type === 'Started') return;
  const outcome = event.type === 'Failed' ? 'failed' : 'succeeded';
  stepTotal.inc({ step: event.step, outcome });
  stepDuration.observe(
    { step: event.step, outcome },
    Math.max(0, event.at.getTime() - event.stepStartedAt) / 1000,
  );
}
