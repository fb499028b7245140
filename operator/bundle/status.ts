// Turns a decision into the bundle's next status and the Events its transitions deserve.
import type { BundleObject, Condition } from '../../crds/index.ts';
import { findCondition, setCondition } from '../../lib/conditions.ts';
import type { BundleDecision } from './decide.ts';

type BundleStatus = NonNullable<BundleObject['status']>;

export function nextBundleStatus(bundle: BundleObject, decision: BundleDecision, now: Date): BundleStatus {
  const generation = bundle.metadata.generation;
  let conditions: Condition[] = [...(bundle.status?.conditions ?? [])];
  for (const update of decision.conditions) conditions = setCondition(conditions, update, generation, now);
  const status: BundleStatus = {
    ...bundle.status,
    ...decision.status,
    phase: decision.phase,
    conditions,
  };
  // observedGeneration says "this generation has been fully handled": set it once the chain ends.
  if (decision.outcome === 'finished' && generation !== undefined) status.observedGeneration = generation;
  return status;
}

export interface StepEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** Event reasons for a step condition entering a status (False reasons are used as they are). */
const STEP_EVENTS: Record<string, Partial<Record<string, string>>> = {
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
export function transitionEvents(
  before: readonly Condition[] | undefined,
  after: readonly Condition[],
): StepEvent[] {
  const events: StepEvent[] = [];
  for (const c of after) {
    const old = findCondition(before, c.type);
    if (old && old.status === c.status && old.reason === c.reason) continue;
    if (c.type === 'Ready') {
      // Ready only adds news when it says the whole chain ended or is blocked by something missing.
      if (c.status === 'True') events.push({ type: 'Normal', reason: 'Ready', message: c.message });
      else if (c.status === 'False' && !after.some((s) => s.type !== 'Ready' && s.reason === c.reason))
        events.push({ type: 'Warning', reason: c.reason, message: c.message });
      continue;
    }
    const mapped = c.status === 'False' ? undefined : STEP_EVENTS[c.type]?.[c.reason];
    if (mapped) events.push({ type: 'Normal', reason: mapped, message: c.message });
    else
      events.push({
        type: c.reason === 'Superseded' ? 'Normal' : 'Warning',
        reason: c.reason,
        message: c.message,
      });
  }
  return events;
}
