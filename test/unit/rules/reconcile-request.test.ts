// A request to look again holds until the status shows it was handled.
import { describe, expect, it } from '@jest/globals';
import { ANNOTATION_REQUESTED_AT } from '../../../crds/labels.ts';
import { reconcileRequested } from '../../../rules/reconcile-request.ts';

const asked = (requested?: string, handled?: string) => {
  const annotations: Record<string, string> = requested ? { [ANNOTATION_REQUESTED_AT]: requested } : {};
  return { metadata: { annotations }, status: handled ? { lastHandledReconcileAt: handled } : {} };
};

describe('a request to look again', () => {
  it('is pending from the annotation until status.lastHandledReconcileAt has its value', () => {
    expect(reconcileRequested(asked('2026-11-28T10:00:00Z'))).toBe('2026-11-28T10:00:00Z');
    expect(reconcileRequested(asked('2026-11-28T10:05:00Z', '2026-11-28T10:00:00Z'))).toBe(
      '2026-11-28T10:05:00Z',
    );
    expect(reconcileRequested(asked('2026-11-28T10:05:00Z', '2026-11-28T10:05:00Z'))).toBeUndefined();
    expect(reconcileRequested(asked())).toBeUndefined();
  });
});
