// Helpers for the deferred status patch at the end of every reconcile.
import type { Condition } from '../../crds/index.ts';
import { findCondition } from '../../lib/conditions.ts';

/** JSON with sorted keys and no undefined values, so two equal statuses compare equal. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
      return sorted;
    }
    return v;
  });
}

/** Whether writing `next` would change `current`; a null in `next` removes a field. */
export function statusDiffers(current: object | undefined, next: Record<string, unknown>): boolean {
  const cur = (current ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(next)) {
    if (value === null) {
      if (cur[key] !== undefined) return true;
    } else if (value !== undefined && canonical(cur[key]) !== canonical(value)) return true;
  }
  return false;
}

/** The Ready condition's status and reason changed between two condition lists. */
export function readyTransition(
  before: readonly Condition[] | undefined,
  after: readonly Condition[],
): Condition | undefined {
  const a = findCondition(before, 'Ready');
  const b = findCondition(after, 'Ready');
  if (!b || (a && a.status === b.status && a.reason === b.reason)) return undefined;
  return b;
}
