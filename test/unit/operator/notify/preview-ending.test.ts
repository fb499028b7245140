// What a preview tells notification receivers, once per head commit.
import { describe, expect, it } from '@jest/globals';
import { previewEnding, previewReceipt } from '../../../../operator/notify/preview-ending.ts';
import { headline } from '../../../../operator/notify/facts.ts';
import { preview, spec, status } from '../../../support/builders.ts';

const HEAD = 'a'.repeat(40);
const at = (phase: string, deployedCommit?: string, deleting = false) => {
  const p = preview(
    'shop-pr-7',
    spec({ headCommit: HEAD }),
    status({ phase, ...(deployedCommit ? { deployedCommit } : {}) }),
  );
  if (deleting) p.metadata.deletionTimestamp = '2026-11-28T10:00:00Z';
  return previewEnding(p);
};

describe("a preview's notification", () => {
  it('PreviewReady once it serves its head commit, keyed by that commit; nothing while it builds a newer one', () => {
    expect(at('Ready', HEAD)).toMatchObject({ event: 'PreviewReady', commit: HEAD });
    expect(previewReceipt(at('Ready', HEAD)!)).toBe(`PreviewReady@${HEAD}`);
    expect(at('Building', 'b'.repeat(40))).toBeUndefined();
    expect(at('Waiting')).toBeUndefined();
  });

  it('PreviewFailed, and PreviewRemoved of the commit it served', () => {
    expect(at('Failed')?.event).toBe('PreviewFailed');
    expect(at('Ready', 'b'.repeat(40), true)).toMatchObject({
      event: 'PreviewRemoved',
      commit: 'b'.repeat(40),
    });
  });

  it('reads as a person expects', () => {
    const facts = {
      severity: 'info' as const,
      project: 'shop',
      namespace: 'team',
      bundle: 'shop-0123456789ab',
      commit: HEAD,
      branch: 'feature',
      environment: 'preview/pr-7',
      message: '',
      time: '2026-11-28T10:00:00Z',
      url: 'http://pr-7.test',
    };
    expect(headline({ ...facts, event: 'PreviewReady' })).toBe(
      'shop: preview/pr-7 is ready (shop-0123456789ab)',
    );
    expect(headline({ ...facts, event: 'PreviewRemoved' })).toBe('shop: preview/pr-7 was removed');
  });
});
