// Writes a decision into the bundle's status (with the Events of its transitions) and publishes
// the life-cycle events the write made happen.
import type { BundleObject } from '../../crds/index.ts';
import type { HandlerResult } from '../../lib/queue.ts';
import { timeMs } from '../../rules/timestamps.ts';
import type { OperatorContext } from '../context.ts';
import { ANNOTATION_ROLLOUT_STARTED } from '../names.ts';
import type { BundleDecision, BundleInputs } from './decision.ts';
import { lifecycleEvents, type BundleLifecycle, type BundleStep } from './lifecycle.ts';
import { bundleStatusUpdate, transitionEvents } from './status.ts';

type BundleStatus = NonNullable<BundleObject['status']>;

export async function writeBundleStatus(
  ctx: OperatorContext,
  lifecycle: BundleLifecycle,
  input: BundleInputs,
  decision: BundleDecision,
): Promise<HandlerResult | void> {
  const { bundle } = input;
  const { namespace, name } = bundle.metadata;
  const before = ctx.status.current(bundle);
  const written = (await ctx.status.write(
    'Bundle',
    bundle,
    bundleStatusUpdate(bundle, decision),
    transitionEvents,
  )) as BundleStatus | undefined;
  if (written) {
    lifecycle.publish(lifecycleEvents(bundle, before, written, stepStarts(input), input.now));
    if (decision.outcome === 'finished')
      ctx.log.info({ bundle: `${namespace}/${name}`, phase: decision.phase }, 'bundle finished');
  }
  return decision.requeueAfterMs === undefined ? undefined : { requeueAfterMs: decision.requeueAfterMs };
}

/** When each step began: its Job's creation, the rollout's start annotation. */
function stepStarts(input: BundleInputs): Partial<Record<BundleStep, number>> {
  const starts: Partial<Record<BundleStep, number | undefined>> = {
    build: timeMs(input.buildJob?.metadata?.creationTimestamp),
    backup: timeMs(input.backupJob?.metadata?.creationTimestamp),
    deploy: timeMs(input.deployment?.metadata?.annotations?.[ANNOTATION_ROLLOUT_STARTED]),
  };
  return Object.fromEntries(Object.entries(starts).filter(([, ms]) => ms !== undefined));
}
