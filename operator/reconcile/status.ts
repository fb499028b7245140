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

/**
 * `target` after a JSON merge patch (RFC 7386), as the API server applies one to /status:
 * objects merge field by field at every depth, `null` removes a field, arrays are replaced.
 */
export function mergePatched(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else if (value !== undefined) result[key] = mergePatched(result[key], value);
  }
  return result;
}

/** Whether merge-patching `next` into `current` would change it. */
export function statusDiffers(current: object | undefined, next: Record<string, unknown>): boolean {
  return canonical(mergePatched(current ?? {}, next)) !== canonical(current ?? {});
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
