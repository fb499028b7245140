// The deferred status patch of a controller whose checks end in one Ready condition (Project,
// Environment, Webhook): set Ready, write /status only when something changed, and record an
// Event when Ready's status or reason moved.
import type { Condition } from '../../crds/index.ts';
import { setCondition, type ConditionUpdate } from '../../lib/conditions.ts';
import type { KindName } from '../../lib/kube.ts';
import type { OperatorContext } from '../context.ts';
import { readyTransition, statusDiffers } from './status.ts';

export interface ReadyTarget {
  apiVersion: string;
  metadata: { name: string; namespace: string; uid?: string; generation?: number };
  status?: { conditions?: Condition[] };
}

/**
 * Patches `fields` with Ready and observedGeneration into the object's status. Event notes are
 * the condition's message, so a message must never carry a credential.
 */
export async function publishReadyStatus(
  ctx: Pick<OperatorContext, 'slipway' | 'events'>,
  kind: KindName,
  object: ReadyTarget,
  ready: ConditionUpdate,
  fields: Record<string, unknown>,
  now: Date,
): Promise<void> {
  const { name, namespace, generation } = object.metadata;
  const conditions = setCondition(object.status?.conditions, ready, generation, now);
  const status = {
    ...fields,
    conditions,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
  if (!statusDiffers(object.status, status)) return;
  await ctx.slipway.patchStatus(kind, namespace, name, status);
  const changed = readyTransition(object.status?.conditions, conditions);
  if (changed)
    void ctx.events.record(
      { apiVersion: object.apiVersion, kind, metadata: object.metadata },
      changed.status === 'True' ? 'Normal' : 'Warning',
      changed.reason,
      changed.message,
      'Reconcile',
    );
}
