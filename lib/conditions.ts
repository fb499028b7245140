// metav1.Condition bookkeeping: lastTransitionTime moves only when the status changes.
import type { Condition } from '../crds/index.ts';

export interface ConditionUpdate {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

export function setCondition(
  conditions: readonly Condition[] | undefined,
  update: ConditionUpdate,
  observedGeneration: number | undefined,
  now: Date,
): Condition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((c) => c.type === update.type);
  const previous = index >= 0 ? list[index] : undefined;
  const next: Condition = {
    ...update,
    ...(observedGeneration === undefined ? {} : { observedGeneration }),
    lastTransitionTime:
      previous && previous.status === update.status ? previous.lastTransitionTime : now.toISOString(),
  };
  if (index >= 0) list[index] = next;
  else list.push(next);
  return list;
}

export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}
