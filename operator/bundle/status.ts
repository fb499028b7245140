// Turns a decision into the bundle's next status and the Events its transitions deserve.
import type { BundleObject, BundleReason } from '../../crds/index.ts';
import { findCondition } from '../../lib/conditions.ts';
import {
  RECONCILING,
  STALLED,
  type StatusEvent,
  type StatusUpdate,
  type TransitionEvents,
} from '../reconcile/status-writer.ts';
import type { BundleDecision } from './decision.ts';

/** The fields and conditions a decision writes into the bundle's status. */
export function bundleStatusUpdate(bundle: BundleObject, decision: BundleDecision): StatusUpdate {
  return {
    writer: 'bundle',
    fields: {
      ...decision.status,
      phase: decision.phase,
    },
    conditions: decision.conditions,
    // observedGeneration says "this generation has been fully handled": set once the chain ends.
    observed: decision.outcome === 'finished',
  };
}

/** Event reasons for a step condition entering a status (False reasons are used as they are). */
const STEP_EVENTS: Record<string, Partial<Record<BundleReason, string>>> = {
  Built: { Queued: 'Queued', Building: 'BuildStarted', Succeeded: 'Built' },
  BackedUp: {
    BackingUp: 'BackupStarted',
    Succeeded: 'BackedUp',
    WaitingForEnvironment: 'WaitingForEnvironment',
  },
  Deployed: {
    Progressing: 'RolloutStarted',
    Succeeded: 'Deployed',
    WaitingForEnvironment: 'WaitingForEnvironment',
  },
};

/** One Event per condition that changed status or reason; Warnings for failures. */
export const transitionEvents: TransitionEvents = (before, after) => {
  const events: StatusEvent[] = [];
  for (const c of after) {
    // kstatus's Reconciling and Stalled repeat Ready, which has its Event.
    if (c.type === RECONCILING || c.type === STALLED) continue;
    const old = findCondition(before, c.type);
    if (old && old.status === c.status && old.reason === c.reason) continue;
    if (c.type === 'Ready') {
      // Ready only adds news when it says the whole chain ended or is blocked by something missing.
      if (c.status === 'True') events.push({ type: 'Normal', reason: 'Ready', message: c.message });
      else if (c.status === 'False' && !after.some((s) => s.type !== 'Ready' && s.reason === c.reason))
        events.push({ type: 'Warning', reason: c.reason, message: c.message });
      continue;
    }
    const mapped = c.status === 'False' ? undefined : STEP_EVENTS[c.type]?.[c.reason as BundleReason];
    if (mapped) events.push({ type: 'Normal', reason: mapped, message: c.message });
    else
      events.push({
        type: c.reason === 'Superseded' ? 'Normal' : 'Warning',
        reason: c.reason,
        message: c.message,
      });
  }
  return events;
};
